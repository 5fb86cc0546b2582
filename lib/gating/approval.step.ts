import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { MachineStep } from '../machines/machine-engine.interface.js';
import { chainTimers, hasTimers } from '../machines/machine-timers.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpToolApproval, McpTransitionRole } from '../registry/mcp-handler-role.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';
import { expiryCancelOf, expiryTimersOf } from './approval-expiry.js';
import * as messages from './gating.messages.js';
import type { WorkflowAdmission, WorkflowDecision } from './workflow-call-outcome.js';
import type { WorkflowCall, WorkflowCaller, WorkflowRequest } from './workflow-call.js';
import { deny } from './workflow-denial.js';
import { WORKFLOW_TASK_RESULTS, type WorkflowTaskResults } from './workflow-task.js';

/** What a call that waits for approval answers (its `structuredContent`). */
export interface WorkflowWaitingResult {
  status: 'waiting_for_approval';
  /** The state the instance waits in. */
  state: string;
  /** The tool that approves it. */
  approve: string;
  /** The tool that rejects it. */
  reject: string;
  message: string;
}

/** What a decision call found before it entered the gate: the request it decides, and the owner its claim names. */
interface DecisionPrelude {
  /** The waiting request it decides (`at`), checked again on the claimed instance. */
  readonly at: string;
  /** The instance's owner: the decider reaches it by the approvers' authority, not by owning it. */
  readonly owner: string | undefined;
}

/** The argument of a reject tool that says why. */
export const REJECT_REASON_KEY = 'reason';

/**
 * The gate's approval step (`@McpApproval`): a call that must wait is parked, under its claim, in
 * the approval's waiting state with its request stored beside the instance, and its handler does
 * not run; a decision tool's call claims the waiting instance and decides it: approving sends the
 * stored event with the stored arguments to the instance as the request found it (its handler
 * runs then), rejecting puts it back. The claim makes each decision happen once, whichever replica
 * decides. A request with `expiresAfterMs` parks with a durable timer that the deadline scheduler
 * fires as the reject tool's call (reason `"expired"`); any decision cancels it in its commit.
 */
@Injectable()
export class WorkflowApprovals {
  private readonly logger = new Logger('McpGate');
  private readonly preludes = new WeakMap<WorkflowCall, DecisionPrelude>();
  /** Callers of the app's own code (`McpWorkflowService.approve`/`reject`): their authority is the app's. */
  private readonly backOffice = new WeakSet<WorkflowCaller>();

  constructor(
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    @Optional() @Inject(WORKFLOW_TASK_RESULTS) private readonly tasks?: WorkflowTaskResults,
  ) {}

  /** Marks `caller` as the app's own back office (see `McpWorkflowService.approve`). */
  trustAsBackOffice(caller: WorkflowCaller): void {
    this.backOffice.add(caller);
  }

  /**
   * The arguments a call runs with: an approval's are the waiting request's (with the handle),
   * read before the call enters the gate, so the method's pipes and handler see them; any other
   * call's are its own. Never throws: what it cannot read, the claim refuses.
   */
  async argsOf(request: WorkflowRequest): Promise<{ args: Record<string, unknown>; prelude?: DecisionPrelude }> {
    const { role } = request.target;
    if (role.kind !== 'transition' || !role.decision) {
      return { args: request.args };
    }
    const key = this.machines.machine(role.machine).stateHandleKey!;
    const handle = request.args[key];
    if (typeof handle !== 'string') {
      return { args: request.args };
    }
    const snapshot = await this.store
      .load(formatInstanceKey({ machine: role.machine, scope: 'handle', id: handle }))
      .catch(() => undefined);
    const waiting = snapshot?.waiting;
    const backOffice = this.backOffice.has(request.caller);
    if (!snapshot || !waiting || waiting.tool !== role.decision.of || !role.states.includes(snapshot.state)) {
      // The app's own code reaches the instance whoever owns it, to be told why nothing waits.
      return { args: request.args, prelude: backOffice && snapshot ? { at: '', owner: snapshot.owner } : undefined };
    }
    const owner = request.target.access !== undefined || backOffice ? snapshot.owner : undefined;
    const args = role.decision.verdict === 'approve' ? { ...waiting.input, [key]: handle } : request.args;
    return { args, prelude: { at: waiting.at, owner } };
  }

  /** Keeps what {@link argsOf} found for the call made with its arguments. */
  remember(call: WorkflowCall, prelude: DecisionPrelude | undefined): void {
    if (prelude) this.preludes.set(call, prelude);
  }

  /** The owner a decision call claims its instance as when the decider reaches it by authority (the instance's own); else `undefined`. */
  authorityOwner(call: WorkflowCall): string | undefined {
    return this.preludes.get(call)?.owner;
  }

  /**
   * Where a call of a transition with `@McpApproval` leads once decided: unchanged when it need
   * not wait (`when` does not hold), else into the waiting state, with its request and the timer
   * that expires it (`expiresAfterMs`); refused DECLINED when that expiry cannot be worked out.
   */
  park(call: WorkflowCall, role: McpTransitionRole, decision: WorkflowDecision, input: Record<string, unknown>): WorkflowDecision {
    const approval = role.approval;
    if (!approval || !this.mustWait(call, approval, input)) {
      return decision;
    }
    const { from } = decision;
    const timers = this.expiryOf(call, role, input, from.state);
    const waiting: WorkflowWaitingRequest = {
      tool: call.tool.name,
      event: role.event,
      input: structuredClone(input),
      requestedBy: call.principal ?? null,
      from: { state: from.state, ...(from.context === undefined ? {} : { context: from.context }) },
      at: new Date().toISOString(),
      ...(taskOf(call) ? { taskId: taskOf(call) } : {}),
    };
    return { from, next: { state: approval.waitIn, context: from.context }, waiting, ...(timers && { timers }) };
  }

  /** The timer that expires the parked call; a function that throws or answers no delay refuses the call (fail closed: no request waits with no end). */
  private expiryOf(call: WorkflowCall, role: McpTransitionRole, input: Record<string, unknown>, state: string) {
    try {
      return expiryTimersOf(call, role.approval!, input);
    } catch (error) {
      this.logger.error(messages.approvalExpiryFailed(call.tool.name, error), error instanceof Error ? error.stack : undefined);
      throw deny({ code: 'DECLINED', machine: role.machine, state, why: messages.approvalExpiryUnknown() });
    }
  }

  /** Whether the call waits: `when` holds, or it threw (fail closed: a second person looks at what the app could not judge). */
  private mustWait(call: WorkflowCall, approval: McpToolApproval, input: Record<string, unknown>): boolean {
    try {
      return approval.when ? approval.when(input, call.context) : true;
    } catch (error) {
      this.logger.error(messages.approvalWhenFailed(call.tool.name, error), error instanceof Error ? error.stack : undefined);
      return true;
    }
  }

  /** What a parked call answers instead of its handler's value. */
  waitingValue(call: WorkflowCall, approval: McpToolApproval, machine: string): WorkflowWaitingResult {
    const handle = String(call.context.handle ?? '');
    return {
      status: 'waiting_for_approval',
      state: approval.waitIn,
      approve: approval.approve,
      reject: approval.reject,
      message: messages.waitingForApproval(call.tool.name, machine, handle, approval.waitIn, approval.approve, approval.reject),
    };
  }

  /**
   * What a decision tool's call decides on its claimed instance: an approval sends the stored event
   * with the stored arguments to the instance as the request found it (`send` checks the guards
   * again), after making sure a second person approves, with the timers its transition schedules;
   * a rejection restores it. Either cancels the request's expiry timer in the same commit.
   */
  decide(
    call: WorkflowCall,
    admission: WorkflowAdmission,
    role: McpTransitionRole,
    send: (from: WorkflowSnapshot, event: string, input: Record<string, unknown>) => Extract<MachineStep, { status: 'moved' }>,
  ): WorkflowDecision {
    const { snapshot, instance } = admission;
    const waiting = snapshot.waiting;
    if (!waiting || waiting.tool !== role.decision?.of) {
      throw deny({ code: 'FORBIDDEN', machine: instance.machine, state: snapshot.state }, admission);
    }
    const prelude = this.preludes.get(call);
    if (role.decision.verdict === 'approve' && prelude?.at !== waiting.at) {
      // Another request waits now than the one whose arguments this call was made with.
      throw deny({ code: 'BUSY', machine: instance.machine, state: snapshot.state }, admission);
    }
    const from: WorkflowSnapshot = {
      state: waiting.from.state,
      ...(waiting.from.context === undefined ? {} : { context: waiting.from.context }),
      updatedAt: snapshot.updatedAt,
      ...(snapshot.owner === undefined ? {} : { owner: snapshot.owner }),
    };
    if (role.decision.verdict === 'reject') {
      const reason = call.args[REJECT_REASON_KEY];
      const note = {
        verdict: 'rejected' as const,
        requestedBy: waiting.requestedBy,
        ...(typeof reason === 'string' && reason ? { reason } : {}),
      };
      const cancel = expiryCancelOf(role.decision.expiryTimer);
      return { from, next: { state: from.state, context: from.context }, event: null, approval: note, ...(cancel && { timers: cancel }) };
    }
    const approver = call.principal;
    if (approver === undefined || approver === waiting.requestedBy) {
      const reason = { code: 'SELF_APPROVAL' as const, machine: instance.machine, state: snapshot.state, requestedBy: waiting.requestedBy };
      throw deny({ ...reason, anonymous: approver === undefined }, admission);
    }
    call.context.approval = { requestedBy: waiting.requestedBy, approvedBy: approver, requestedAt: waiting.at };
    const step = send(from, waiting.event, waiting.input);
    const cancel = expiryCancelOf(role.decision.expiryTimer);
    const timers = cancel ? chainTimers(cancel, step.timers) : step.timers;
    return {
      from,
      next: step.next,
      approval: { verdict: 'approved', requestedBy: waiting.requestedBy },
      ...(hasTimers(timers) && { timers }),
    };
  }

  /** What a rejection answers (a reject tool's value). */
  rejectedValue(call: WorkflowCall): { status: 'rejected'; state: string; message: string } {
    const machine = call.context.machine ?? '';
    const state = String(call.context.state ?? '');
    return { status: 'rejected', state, message: messages.rejected(rejectedTool(call), machine, state) };
  }

  /**
   * Completes the task of a decided request when it ran as one: with the handler's result once
   * approved, with a `DECLINED` tool error once rejected (`declined`). A failure is logged: the
   * decision is stored already.
   */
  async settleTask(
    call: WorkflowCall,
    decision: WorkflowDecision,
    admission: WorkflowAdmission,
    result: () => CallToolResult,
  ): Promise<void> {
    const taskId = admission.snapshot.waiting?.taskId;
    if (!taskId || !decision.approval || !this.tasks) {
      return;
    }
    try {
      await this.tasks.settle(taskId, result());
    } catch (error) {
      this.logger.error(messages.taskSettleFailed(call.tool.name, taskId, error));
    }
  }

  /** The tool whose waiting call a decision tool's call decides (a rejected task's tool). */
  requestedTool(call: WorkflowCall): string {
    return rejectedTool(call);
  }

  /** Why the task of a rejected request is DECLINED: a second person said no, or the request expired. */
  declinedWhy(call: WorkflowCall, decision: WorkflowDecision): string {
    const { deadline } = call.caller;
    return deadline ? messages.approvalExpired(deadline.id) : messages.approvalRejected(call.principal ?? null, decision.approval?.reason);
  }
}

/** The task a call runs as, when the tasks side set one (`WorkflowRequest.task`). */
function taskOf(call: WorkflowCall): string | undefined {
  return call.task?.taskId;
}

/** The tool whose waiting call a reject tool's call rejected. */
function rejectedTool(call: WorkflowCall): string {
  const { role } = call.tool;
  return role.kind === 'transition' && role.decision ? role.decision.of : call.tool.name;
}
