import { isDeepStrictEqual } from 'node:util';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { NO_GRANTS, permits } from '../access/access-requirement.js';
import type { McpMachineApproval, McpPrincipal } from '../machines/machine-access.js';
import type { MachineStep } from '../machines/machine-engine.interface.js';
import { chainTimers, hasTimers } from '../machines/machine-timers.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpApprovalDecision, McpToolApproval, McpTransitionRole } from '../registry/mcp-handler-role.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowApprovalVerdict, WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';
import { expiryCancelOf, expiryTimersOf } from './approval-expiry.js';
import { isRequester, newRequestId, REQUEST_ID_KEY, requesterOf, waitingRequestOf } from './approval-request.js';
import * as messages from './gating.messages.js';
import { authOf, mayAccess, principalOf } from './workflow-access.js';
import type { WorkflowAdmission, WorkflowDecision } from './workflow-step-values.js';
import type { WorkflowCall, WorkflowCaller, WorkflowDecisionTarget, WorkflowRequest } from './workflow-call.js';
import { deny, storeFailure } from './workflow-denial.js';
import { WORKFLOW_TASK_RESULTS, type WorkflowTaskResults } from './workflow-task.js';

/** What a call that waits for approval answers (its `structuredContent`). */
export interface WorkflowWaitingResult {
  status: 'waiting_for_approval';
  /** The state the instance waits in. */
  state: string;
  /** The request's id: what a decision names. */
  requestId: string;
  /** The tool that approves it. */
  approve: string;
  /** The tool that rejects it (or withdraws it, called by the person who asked). */
  reject: string;
  message: string;
}

/** What a rejection (or a withdrawal) answers: a reject tool's value. */
export interface WorkflowRejectedResult {
  status: 'rejected' | 'withdrawn';
  /** The state the instance is in now. */
  state: string;
  /** The request decided. */
  requestId: string;
  message: string;
}

/** Sends a waiting request's event to the instance as it found it, as the requester, with the approval. */
export type WorkflowApprovedSend = (
  from: WorkflowSnapshot,
  event: string,
  input: Record<string, unknown>,
  as: { principal: McpPrincipal | undefined; approval: McpMachineApproval },
) => Extract<MachineStep, { status: 'moved' }>;

/** The argument of a reject tool that says why. */
export const REJECT_REASON_KEY = 'reason';

/**
 * The gate's approval step (`@McpApproval`): a call that must wait is parked, under its claim, in
 * the approval's waiting state with its request (and a new `requestId`) stored beside the
 * instance, and its handler does not run; a decision's call claims the waiting instance under
 * the machine's access rule, like any call, and decides it only when it names the request that
 * waits ({@link decide}: STALE_REQUEST otherwise) and its caller may (approvers' grants, never the
 * requester; the requester may withdraw). Approving sends the stored event with the stored
 * arguments to the instance as the request found it, with the requester as `event.principal` and
 * the approver as `event.approval` (its handler runs then); rejecting puts it back (or in
 * `rejectTo`). The claim makes each decision happen once, whichever replica decides. A request
 * with `expiresAfterMs` parks with a durable timer that the deadline scheduler fires as the reject
 * tool's call (reason `"expired"`); any decision cancels it in its commit.
 */
@Injectable()
export class WorkflowApprovals {
  private readonly logger = new Logger('McpGate');

  constructor(
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    @Optional() @Inject(WORKFLOW_TASK_RESULTS) private readonly tasks?: WorkflowTaskResults,
  ) {}

  /**
   * The arguments a call runs with, and the request a decision decides: an approval of the
   * request waiting now runs with its stored arguments (and the handle), read before the call
   * enters the gate so the method's guards, pipes and handler see them, but only for a caller the
   * instance is open to (a stranger's call runs with what it sent, and the claim refuses it); any
   * other call with its own. The request a decision names is its `requestId` argument (or what the
   * request says). Never throws: what it cannot read, {@link decide} refuses under the claim.
   */
  async argsOf(request: WorkflowRequest): Promise<{ args: Record<string, unknown>; decides?: WorkflowDecisionTarget }> {
    const { role } = request.target;
    if (role.kind !== 'transition' || !role.decision) {
      return { args: request.args };
    }
    const named = request.args[REQUEST_ID_KEY];
    const decides = request.decides ?? (typeof named === 'string' ? { requestId: named } : {});
    const machine = this.machines.machine(role.machine);
    const key = machine.stateHandleKey!;
    const handle = request.args[key];
    if (role.decision.verdict !== 'approve' || typeof handle !== 'string') {
      return { args: request.args, decides };
    }
    const storeKey = formatInstanceKey({ machine: role.machine, scope: 'handle', id: handle });
    const snapshot = await this.store.load(storeKey).catch(() => undefined);
    const waiting = waitingRequestOf(snapshot, storeKey);
    const who = { caller: request.caller, principal: request.context.authInfo?.clientId };
    const open =
      snapshot !== undefined &&
      (this.reachesEveryInstance(who, role.decision) ||
        mayAccess(
          { authInfo: request.context.authInfo, grants: request.caller.grants },
          machine,
          { machine: role.machine, scope: 'handle', handle },
          snapshot,
        ));
    const found = open && waiting?.tool === role.decision.of && names(decides, waiting) ? waiting : undefined;
    return { args: found ? storedArgs(found, key, handle) : request.args, decides };
  }

  /**
   * Whether a decision's call reaches the waiting instance whoever owns it: the app vouches for
   * its caller, or the approval opens every instance to its approvers (`crossTenantApprovers`)
   * and the caller holds their grants. Every other decision passes the machine's access rule.
   */
  reachesEveryInstance(who: { readonly caller: WorkflowCaller; readonly principal?: string }, decision: McpApprovalDecision): boolean {
    if (who.caller.authority === 'app') return true;
    const { approval } = decision;
    return approval.crossTenantApprovers && who.principal !== undefined && permits(approval.approvers, who.caller.grants ?? NO_GRANTS);
  }

  /** The refusal of a decision whose claim found the instance in `state`, not waiting: no request of the tool waits now. */
  nothingWaits(call: WorkflowCall, machine: string, state: string) {
    return { code: 'STALE_REQUEST' as const, machine, state, named: call.decides?.requestId };
  }

  /**
   * Where a call of a transition with `@McpApproval` leads once decided: unchanged when it need
   * not wait (`when` does not hold), else into the waiting state, with its request (a new
   * `requestId`, the requester as guards see them) and the timer that expires it
   * (`expiresAfterMs`); refused DECLINED when that expiry cannot be worked out.
   */
  park(call: WorkflowCall, role: McpTransitionRole, decision: WorkflowDecision, input: Record<string, unknown>): WorkflowDecision {
    const approval = role.approval;
    if (!approval || !this.mustWait(call, approval, input)) {
      return decision;
    }
    const { from } = decision;
    const timers = this.expiryOf(call, role, input, from.state);
    const at = new Date();
    const delayMs = timers?.schedule[0]?.delayMs;
    const requester = principalOf(authOf(call), this.machines.machine(role.machine));
    const waiting: WorkflowWaitingRequest = {
      requestId: newRequestId(),
      tool: call.tool.name,
      event: role.event,
      input: structuredClone(input),
      requestedBy: call.principal ?? null,
      ...(requester && { requester: structuredClone(requester) }),
      from: { state: from.state, ...(from.context === undefined ? {} : { context: from.context }) },
      at: at.toISOString(),
      ...(delayMs === undefined ? {} : { expiresAt: new Date(at.getTime() + delayMs).toISOString() }),
      ...(call.task ? { taskId: call.task.taskId } : {}),
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
  waitingValue(call: WorkflowCall, approval: McpToolApproval, machine: string, waiting: WorkflowWaitingRequest): WorkflowWaitingResult {
    const handle = String(call.context.handle ?? '');
    const { requestId } = waiting;
    return {
      status: 'waiting_for_approval',
      state: approval.waitIn,
      requestId,
      approve: approval.approve,
      reject: approval.reject,
      message: messages.waitingForApproval(call.tool.name, machine, handle, approval.waitIn, requestId, approval.approve, approval.reject),
    };
  }

  /**
   * What a decision's call decides on its claimed instance, which the machine's access rule let
   * it reach: refused STALE_REQUEST unless the request of the decided tool waiting now is the one
   * it names; refused unless its caller may decide ({@link verdictOf}). An approval sends the
   * stored event with the stored arguments to the instance as the request found it (`send` checks
   * the guards again), with the timers its transition schedules; a rejection restores it (or moves
   * it to `rejectTo`, an expiry to `expireTo`); a withdrawal restores it. Each cancels the
   * request's expiry timer in the same commit.
   */
  decide(call: WorkflowCall, admission: WorkflowAdmission, role: McpTransitionRole, send: WorkflowApprovedSend): WorkflowDecision {
    const { snapshot, instance } = admission;
    const decision = role.decision!;
    const waiting = waitingRequestOf(snapshot, instance.storeKey);
    const current = waiting?.tool === decision.of ? waiting : undefined;
    if (!current || !(call.caller.deadline || names(call.decides ?? {}, current))) {
      const now = current && { requestId: current.requestId, tool: current.tool, requestedBy: current.requestedBy, at: current.at };
      throw deny({ ...this.nothingWaits(call, instance.machine, snapshot.state), ...(now && { now }) }, admission);
    }
    const verdict = this.verdictOf(call, decision, current, admission);
    const from: WorkflowSnapshot = {
      state: current.from.state,
      ...(current.from.context === undefined ? {} : { context: current.from.context }),
      updatedAt: snapshot.updatedAt,
      ...(snapshot.owner === undefined ? {} : { owner: snapshot.owner }),
      ...(snapshot.team === undefined ? {} : { team: snapshot.team }),
    };
    const note = { verdict, requestedBy: current.requestedBy, requestId: current.requestId };
    const cancel = expiryCancelOf(decision.expiryTimer);
    if (verdict !== 'approved') {
      const reason = call.args[REJECT_REASON_KEY];
      const to =
        verdict === 'withdrawn'
          ? undefined
          : call.caller.deadline
            ? (decision.approval.expireTo ?? decision.approval.rejectTo)
            : decision.approval.rejectTo;
      return {
        from,
        next: { state: to ?? from.state, context: from.context },
        event: null,
        approval: { ...note, ...(typeof reason === 'string' && reason ? { reason } : {}) },
        ...(cancel && { timers: cancel }),
      };
    }
    const key = this.machines.machine(instance.machine).stateHandleKey!;
    if (!isDeepStrictEqual(call.args, storedArgs(current, key, instance.handle!))) {
      // The request was not read before the call (the store failed then): its handler would not run with the stored arguments.
      throw storeFailure(new Error(messages.approvalArgumentsUnread(call.tool.name, current.requestId)));
    }
    const approver = principalOf(authOf(call), this.machines.machine(instance.machine))!;
    const at = new Date().toISOString();
    const approved = { requestedBy: current.requestedBy, approvedBy: approver.id, requestedAt: current.at, requestId: current.requestId };
    const step = send(from, current.event, current.input, {
      principal: requesterOf(current),
      approval: Object.freeze({ verdict: 'approved' as const, by: approver, at, requestId: current.requestId }),
    });
    const timers = cancel ? chainTimers(cancel, step.timers) : step.timers;
    return { from, next: step.next, approval: note, approved, ...(hasTimers(timers) && { timers }) };
  }

  /**
   * How the caller decides the waiting request, or why they may not: an approval needs a second
   * person (SELF_APPROVAL: the requester however their principal is spelled, see
   * {@link isRequester}, or an anonymous caller) holding the approvers' grants (NOT_APPROVER)
   * unless the app vouches for them; a rejection by the very principal that asked (or of a task's
   * own request, `tasks/cancel`) is their withdrawal; anyone else rejects with the approvers'
   * grants, the app's authority or a deadline's (an expiry).
   */
  private verdictOf(
    call: WorkflowCall,
    decision: McpApprovalDecision,
    waiting: WorkflowWaitingRequest,
    admission: WorkflowAdmission,
  ): WorkflowApprovalVerdict {
    const { machine } = admission.instance;
    const { state } = admission.snapshot;
    const { requestedBy } = waiting;
    const decider = call.principal;
    const trusted = call.caller.authority === 'app' || call.caller.deadline !== undefined;
    if (decision.verdict === 'reject') {
      if (call.decides?.taskId !== undefined || (decider !== undefined && decider === requestedBy)) return 'withdrawn';
      if (trusted || permits(decision.approval.approvers, call.caller.grants ?? NO_GRANTS)) return 'rejected';
      throw deny(
        { code: 'NOT_APPROVER', machine, state, approvers: approversOf(decision.approval), requestedBy, withdraws: true },
        admission,
      );
    }
    if (decider === undefined || isRequester(decider, waiting)) {
      throw deny({ code: 'SELF_APPROVAL', machine, state, requestedBy, anonymous: decider === undefined }, admission);
    }
    if (!trusted && !permits(decision.approval.approvers, call.caller.grants ?? NO_GRANTS)) {
      throw deny(
        { code: 'NOT_APPROVER', machine, state, approvers: approversOf(decision.approval), requestedBy, withdraws: false },
        admission,
      );
    }
    return 'approved';
  }

  /** What a rejection or a withdrawal answers (a reject tool's value), from its decision. */
  rejectedValue(call: WorkflowCall, decision: WorkflowDecision | undefined): WorkflowRejectedResult {
    const machine = call.context.machine ?? '';
    const state = decision?.next.state ?? String(call.context.state ?? '');
    const withdrawn = decision?.approval?.verdict === 'withdrawn';
    return {
      status: withdrawn ? 'withdrawn' : 'rejected',
      state,
      requestId: decision?.approval?.requestId ?? '',
      message: messages.rejected(rejectedTool(call), machine, state, withdrawn),
    };
  }

  /**
   * Completes the task of a decided request when it ran as one: with the handler's result once
   * approved, with a `DECLINED` tool error once rejected or withdrawn (`result`). A task's own
   * withdrawal (`tasks/cancel`) is left to the canceller, which ends it `cancelled`. A failure is
   * logged: the decision is stored already.
   */
  async settleTask(
    call: WorkflowCall,
    decision: WorkflowDecision,
    admission: WorkflowAdmission,
    result: () => CallToolResult,
  ): Promise<void> {
    const taskId = admission.snapshot.waiting?.taskId;
    if (!taskId || !decision.approval || !this.tasks || call.decides?.taskId !== undefined) {
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

  /** Why the task of a rejected request is DECLINED: a second person said no, the requester withdrew it, or it expired. */
  declinedWhy(call: WorkflowCall, decision: WorkflowDecision): string {
    const { deadline } = call.caller;
    if (deadline) return messages.approvalExpired(deadline.id);
    return decision.approval?.verdict === 'withdrawn'
      ? messages.approvalWithdrawn(decision.approval.requestedBy)
      : messages.approvalRejected(call.principal ?? null, decision.approval?.reason);
  }
}

/** Whether a decision's target names `waiting`: by its task (a task's withdrawal), else by its `requestId`. */
function names(target: WorkflowDecisionTarget, waiting: WorkflowWaitingRequest): boolean {
  return target.taskId !== undefined ? target.taskId === waiting.taskId : target.requestId === waiting.requestId;
}

/** The arguments an approval of `waiting` runs with: the stored ones, with the instance's handle. */
function storedArgs(waiting: WorkflowWaitingRequest, key: string, handle: string): Record<string, unknown> {
  return { ...waiting.input, [key]: handle };
}

/** The approvers' scopes and roles, as a refusal names them. */
function approversOf(approval: McpToolApproval): string[] {
  const { scopes = [], roles = [] } = approval.approvers ?? {};
  return [...scopes, ...(roles.length ? [`one of the roles ${roles.join(', ')}`] : [])];
}

/** The tool whose waiting call a reject tool's call rejected. */
function rejectedTool(call: WorkflowCall): string {
  const { role } = call.tool;
  return role.kind === 'transition' && role.decision ? role.decision.of : call.tool.name;
}
