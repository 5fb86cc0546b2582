import { setTimeout as sleep } from 'node:timers/promises';
import { Inject, Injectable, type OnModuleInit, Optional } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { NO_GRANTS, type McpGrants } from '../access/access-requirement.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { MAX_REQUEST_ID_LENGTH, REQUEST_ID_KEY, waitingRequestOf } from './approval-request.js';
import { REJECT_REASON_KEY } from './workflow-approvals.js';
import { actorAuth, appCaller, appRequest, decisionOf, type McpWorkflowDecision } from './back-office.request.js';
import * as messages from './gating.messages.js';
import type { WorkflowCaller, WorkflowRequest } from './workflow-call.js';
import { WorkflowCall } from './workflow-call.js';
import { WorkflowGate } from './workflow-gate.js';
import { WorkflowRefusal } from './workflow-refusal.js';
import {
  WORKFLOW_TASK_RESULTS,
  type WorkflowTaskResults,
  type WorkflowTaskWithdrawal,
  type WorkflowTaskWithdrawn,
} from './workflow-task.js';
import { WorkflowWaitingRequests, type McpPendingRequest } from './workflow-waiting-requests.js';

/** The most waiting requests one read answers. */
const MAX_PENDING = 100;
/** The longest reason a rejection keeps (as the reject tool takes it). */
const MAX_REASON_LENGTH = 500;
/** The pauses between the tries of a cancelled task's withdrawal while a decision holds its instance (BUSY): about 1.5 s in all. */
const WITHDRAWAL_PAUSES_MS = [50, 100, 200, 400, 800];

/**
 * A person reading or deciding waiting requests from the app's own code (the console), as the app
 * verified them; a tool's `@McpContext()` is one too (its caller's grants then come with the call).
 */
export interface McpDecider {
  /** Their verified auth: `clientId` is the principal; a team rule reads its claim in `extra.claims`. */
  readonly authInfo?: AuthInfo;
  /** What they hold. @default the grants of the tool call `authInfo` came with, else the scopes of `authInfo` (no roles) */
  readonly grants?: McpGrants;
}

/** A decision a person makes from the app's own code: which request, approve or reject, and why. */
export interface McpDecisionRequest {
  machine: string;
  /** The instance's handle. */
  handle: string;
  /** The request decided: nothing is decided when another one waits (`STALE_REQUEST`). */
  requestId: string;
  verdict: 'approve' | 'reject';
  /** Why it is rejected (kept in the history; at most 500 characters). */
  reason?: string;
}

/**
 * The waiting requests of `@McpApproval` for a person outside an MCP call (a console, a back office):
 * those their access rule opens, and deciding one as them, through the gate exactly as the decision
 * tools decide (the same requestId binding, access rule, approvers' grants, SELF_APPROVAL, claim,
 * history row naming them, `list_changed`, the waiting task settled). See docs/approvals-and-tasks.md.
 *
 * @example
 * const pending = await approvals.pending({ authInfo, grants }); // [{ machine, handle, requestId, mayDecide, … }]
 * await approvals.decide({ authInfo, grants }, { machine: 'payment', handle, requestId, verdict: 'approve' });
 */
@Injectable()
export class McpApprovalsService implements OnModuleInit {
  constructor(
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    private readonly tools: McpToolRegistry,
    private readonly gate: WorkflowGate,
    private readonly waiting: WorkflowWaitingRequests,
    @Optional() @Inject(WORKFLOW_TASK_RESULTS) private readonly tasks?: WorkflowTaskResults,
  ) {}

  onModuleInit(): void {
    const withdrawal: WorkflowTaskWithdrawal = (task) => this.withdrawTask(task);
    this.tasks?.withdrawOnCancel(withdrawal);
  }

  /**
   * The waiting requests `who` may see (of `machine`, when given): on instances the machine's
   * access rule opens to them (their own requests included), newest first, at most `limit` (100).
   * Each says whether `who` may decide it, or asked for it. An anonymous person sees none. Throws
   * naming `limit` when it is no whole number from 1, or when the store cannot list waiting requests.
   */
  async pending(who: McpDecider, options: { machine?: string; limit?: number } = {}): Promise<McpPendingRequest[]> {
    const { limit = MAX_PENDING } = options;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      const what = `limit must be a whole number of requests from 1 (at most ${MAX_PENDING} are read; got ${String(limit)})`;
      throw new Error(messages.decisionArgumentInvalid('McpApprovalsService.pending', what));
    }
    if (options.machine !== undefined && !this.machines.has(options.machine)) {
      throw new Error(messages.decisionArgumentInvalid('McpApprovalsService.pending', `there is no machine "${String(options.machine)}"`));
    }
    return this.waiting.list({ authInfo: who.authInfo, grants: this.grantsOf(who) }, Math.min(limit, MAX_PENDING), options.machine);
  }

  /**
   * Decides a waiting request as `who`: approves it (its call's handler runs then) or rejects it
   * (withdraws it, when `who` asked for it). Answers how it was decided; throws the gate's
   * `WorkflowRefusal` (STALE_REQUEST, UNKNOWN_HANDLE, SELF_APPROVAL, NOT_APPROVER, BUSY,
   * GUARD_REJECTED, …) when it decides nothing, or an error naming an argument it cannot use.
   */
  decide(who: McpDecider, decision: McpDecisionRequest): Promise<McpWorkflowDecision> {
    if (!who?.authInfo?.clientId) {
      throw new Error(messages.decisionArgumentInvalid('McpApprovalsService.decide', 'who.authInfo names nobody (clientId)'));
    }
    return this.run('McpApprovalsService.decide', decision, appCaller(this.grantsOf(who)), who.authInfo);
  }

  /**
   * Decides a waiting request as `actor` with the app's own authority (`McpWorkflowService.approve`
   * and `.reject`): the instance is reached whoever owns it and the approvers' grants are not
   * asked; the request binding and SELF_APPROVAL hold.
   */
  decideAsApp(decision: McpDecisionRequest, actor: string): Promise<McpWorkflowDecision> {
    if (typeof actor !== 'string' || actor === '') {
      throw new Error(messages.decisionArgumentInvalid(`McpWorkflowService.${decision?.verdict}`, 'actor must be a non-empty string'));
    }
    return this.run(`McpWorkflowService.${decision.verdict}`, decision, appCaller(NO_GRANTS, 'app'), actorAuth(actor));
  }

  /**
   * Withdraws the request a cancelled task's call left waiting (`tasks/cancel`), through the gate
   * as its requester, bound to the task (not to a request id): `withdrawn`; `decided` when its
   * request was decided first (the task keeps that result); `none` when its call never waited.
   * While a decision holds the instance (BUSY) it tries again for a moment, so the cancel answers
   * what that decision did; `busy` when it still held it after the last try (nothing changed).
   */
  private async withdrawTask(task: Parameters<WorkflowTaskWithdrawal>[0]): Promise<WorkflowTaskWithdrawn> {
    const { role } = this.tools.get(task.request.name) ?? {};
    if (role?.kind !== 'transition' || !role.approval) return 'none';
    const key = this.machines.machine(role.machine).stateHandleKey!;
    const handle = task.request.arguments[key];
    const reject = this.tools.get(role.approval.reject);
    if (typeof handle !== 'string' || !reject) return 'none';
    const storeKey = formatInstanceKey({ machine: role.machine, scope: 'handle', id: handle });
    const waiting = waitingRequestOf(await this.store.load(storeKey), storeKey);
    if (waiting?.taskId !== task.taskId) return task.parked ? 'decided' : 'none';
    const authInfo = task.principal === undefined ? undefined : actorAuth(task.principal);
    const request = appRequest(reject, appCaller(NO_GRANTS, 'app'), authInfo, { [key]: handle }, { taskId: task.taskId });
    let found = await this.withdrawOnce(request);
    for (const pause of WITHDRAWAL_PAUSES_MS) {
      if (found !== 'busy') break;
      await sleep(pause);
      found = await this.withdrawOnce(request);
    }
    return found;
  }

  /** One try of a task's withdrawal through the gate: withdrawn, decided first (STALE_REQUEST), or BUSY. */
  private async withdrawOnce(request: WorkflowRequest): Promise<WorkflowTaskWithdrawn> {
    try {
      decisionOf(await this.gate.run(request));
      return 'withdrawn';
    } catch (error) {
      if (error instanceof WorkflowRefusal && error.data.code === 'STALE_REQUEST') return 'decided';
      if (error instanceof WorkflowRefusal && error.data.code === 'BUSY') return 'busy';
      throw error;
    }
  }

  /** Checks a decision's arguments, and runs it through the gate as the decision tool of the request that waits. */
  private async run(
    method: string,
    decision: McpDecisionRequest,
    caller: WorkflowCaller,
    authInfo: AuthInfo,
  ): Promise<McpWorkflowDecision> {
    const { machine, handle, requestId, verdict, reason } = decision ?? ({} as McpDecisionRequest);
    const invalid = (what: string) => new Error(messages.decisionArgumentInvalid(method, what));
    if (typeof machine !== 'string' || !this.machines.has(machine) || !this.machines.machine(machine).stateHandleKey) {
      throw invalid(`machine must name a handle-keyed machine of the module (got ${JSON.stringify(machine)})`);
    }
    if (verdict !== 'approve' && verdict !== 'reject')
      throw invalid(`verdict must be "approve" or "reject" (got ${JSON.stringify(verdict)})`);
    if (typeof handle !== 'string' || handle === '') throw invalid('handle must be a non-empty string');
    if (typeof requestId !== 'string' || requestId === '' || requestId.length > MAX_REQUEST_ID_LENGTH) {
      throw invalid(`requestId must be the requestId of the waiting request (1 to ${MAX_REQUEST_ID_LENGTH} characters)`);
    }
    if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH)) {
      throw invalid(`reason must be text of at most ${MAX_REASON_LENGTH} characters`);
    }
    const tool = await this.decisionTool(machine, handle, verdict);
    const key = this.machines.machine(machine).stateHandleKey!;
    const args = { [key]: handle, [REQUEST_ID_KEY]: requestId, ...(verdict === 'reject' && reason ? { [REJECT_REASON_KEY]: reason } : {}) };
    return decisionOf(await this.gate.run(appRequest(tool, caller, authInfo, args)));
  }

  /** The decision tool of `verdict` for the request waiting on the instance (any of the machine's, when none waits: the gate says so). */
  private async decisionTool(machine: string, handle: string, verdict: 'approve' | 'reject'): Promise<McpToolDefinition> {
    const deciders = this.tools
      .all()
      .filter(({ role }) => role.kind === 'transition' && role.machine === machine && role.decision?.verdict === verdict);
    if (deciders.length === 0) {
      throw new Error(messages.noApprovalOn(machine));
    }
    const storeKey = formatInstanceKey({ machine, scope: 'handle', id: handle });
    const waiting = await this.store.load(storeKey).then(
      (snapshot) => snapshot?.waiting,
      () => undefined,
    );
    return deciders.find(({ role }) => role.kind === 'transition' && role.decision?.of === waiting?.tool) ?? deciders[0];
  }

  /** What `who` holds: as given, else as the tool call `who` is the context of says, else its token's scopes. */
  private grantsOf(who: McpDecider): McpGrants {
    if (who.grants) return who.grants;
    const call = WorkflowCall.of(who);
    if (call) return call.caller.grants ?? NO_GRANTS;
    return { scopes: new Set(who.authInfo?.scopes ?? []), roles: new Set() };
  }
}
