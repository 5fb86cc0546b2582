import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { WorkflowTransitionBus } from '../relays/workflow-transition.bus.js';
import type { McpGatedRole } from '../registry/mcp-handler-role.js';
import type { WorkflowCommit } from '../stores/atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { FsmTransaction } from '../stores/transactional-fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import * as messages from './gating.messages.js';
import type {
  McpCallResult,
  WorkflowAdmission,
  WorkflowCallWaiting,
  WorkflowDecision,
  WorkflowHold,
  WorkflowInstanceRef,
  WorkflowStored,
} from './workflow-step-values.js';
import type { WorkflowCall } from './workflow-call.js';
import { deny } from './workflow-denial.js';
import { deadlineActor, timerChangesOf } from './workflow-deadline.changes.js';
import { receiptOf } from './outside-event.receipt.js';
import { WORKFLOW_END_EVENT } from './end.request.js';
import { WorkflowReceipts } from './workflow-receipts.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';
import { SILENT_GATE_OBSERVER, WORKFLOW_GATE_OBSERVER, type WorkflowGateObserver } from './workflow-gate-observer.interface.js';
import { WORKFLOW_START_FOLLOWS, type WorkflowStartFollows } from './workflow-start-follows.interface.js';

/** What a successful call answers, as its commit keeps it in a keyed call's receipt: its result, and how it waits when it does. */
export interface WorkflowAnswered {
  readonly result?: McpCallResult;
  readonly waiting?: WorkflowCallWaiting;
}

/**
 * The gate's last step: stores what a successful call changed (under its claim, in its
 * transaction, or as a new instance) with its history row, publishes it to the sessions that
 * follow the instance, and lets go of whatever a call holds that it did not commit.
 */
@Injectable()
export class WorkflowCommits {
  private readonly logger = new Logger('McpGate');

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly store: FsmStoreAdapter,
    private readonly bus: WorkflowTransitionBus,
    private readonly receipts: WorkflowReceipts,
    @Optional() @Inject(WORKFLOW_GATE_OBSERVER) private readonly observer: WorkflowGateObserver = SILENT_GATE_OBSERVER,
    @Optional() @Inject(WORKFLOW_START_FOLLOWS) private readonly startFollows?: WorkflowStartFollows,
  ) {}

  /**
   * Stores the change `decision` makes to the admitted instance of a call of `role` (with the
   * receipt of a keyed call: what it `answered`), then publishes it; answers what it stored.
   */
  async commit(
    call: WorkflowCall,
    role: McpGatedRole,
    admission: WorkflowAdmission,
    decision: WorkflowDecision,
    answered: WorkflowAnswered = {},
  ): Promise<WorkflowStored> {
    const { instance, hold } = admission;
    const { from, next } = decision;
    const at = new Date().toISOString();
    const snapshot: WorkflowSnapshot = {
      ...next,
      updatedAt: at,
      owner: from.owner,
      ...(decision.waiting && { waiting: decision.waiting }),
      ...(from.team === undefined ? {} : { team: from.team }),
    };
    const start = role.kind === 'start';
    const bound = role.kind === 'start' || role.kind === 'transition' ? (role.event ?? null) : null;
    const timers = timerChangesOf(instance.machine, decision.timers, Date.parse(at), call.caller.deadline);
    if (timers && !this.store.supports.timers) {
      throw new Error(messages.storeKeepsNoTimers(this.store.name, instance.machine));
    }
    const record: WorkflowTransitionRecord = {
      machine: instance.machine,
      key: instance.storeKey,
      // The state the instance leaves: a decided request's `from` is where it was asked, not where it waited.
      from: start ? null : admission.snapshot.state,
      to: next.state,
      event: decision.event !== undefined ? decision.event : bound,
      at,
      tool: call.tool.name,
      principal: deadlineActor(call.caller.deadline) ?? call.principal ?? call.context.sessionId ?? null,
      ...(decision.approval && { approval: decision.approval }),
    };
    if (decision.ends) return this.end(call, admission, { ...record, event: WORKFLOW_END_EVENT, to: admission.snapshot.state });
    const event = receiptOf(call, record);
    const { result = { content: [] }, waiting } = answered;
    const receipt = this.receipts.receiptOf(call, instance, { result, state: next.state, ...(waiting && { waiting }) });
    const followed = await this.observer.commit(call, async () => {
      switch (hold.kind) {
        case 'transaction':
          return this.commitStart(call, instance, hold.transaction, { snapshot, record, timers, event, receipt });
        case 'lock':
          if (!(await hold.lock.commit({ snapshot, record, timers, event, receipt }))) {
            const { leaseMs } = this.options;
            throw deny({ code: 'LEASE_EXPIRED', machine: instance.machine, state: hold.lock.snapshot.state, leaseMs });
          }
          return;
        case 'none':
          return this.store.create(instance.storeKey, snapshot, record, timers, receipt);
      }
    });
    this.bus.publish({ machine: instance.machine, storeKey: instance.storeKey, state: next.state, origin: call.caller });
    return followed ? { state: next.state, followed } : { state: next.state };
  }

  /**
   * Commits a transactional start's new instance with, when the caller is a session whose record
   * is on the same database, its following of the instance; rolls back on any error. Whether the
   * following was stored.
   */
  private async commitStart(
    call: WorkflowCall,
    instance: WorkflowInstanceRef,
    transaction: FsmTransaction,
    commit: WorkflowCommit,
  ): Promise<true | undefined> {
    try {
      const followed =
        instance.scope === 'handle' && (await this.startFollows?.within(call.caller, instance.storeKey, transaction)) ? true : undefined;
      await transaction.commit(instance.storeKey, commit, { insert: true });
      return followed;
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
  }

  /** Ends the admitted instance under its claim (deleted, with `record` as its last history row), then publishes that it ended. */
  private async end(call: WorkflowCall, { instance, hold }: WorkflowAdmission, record: WorkflowTransitionRecord): Promise<WorkflowStored> {
    await this.observer.commit(call, async () => {
      if (hold.kind !== 'lock' || !hold.lock.end) throw new Error(messages.endNeedsDelete(this.store.name));
      if (!(await hold.lock.end(record))) {
        throw deny({ code: 'LEASE_EXPIRED', machine: instance.machine, state: hold.lock.snapshot.state, leaseMs: this.options.leaseMs });
      }
    });
    this.bus.publish({ machine: instance.machine, storeKey: instance.storeKey, state: null, origin: call.caller });
    return { state: null };
  }

  /** Lets go of what a call holds: a claim's lease, or a transaction that was not committed. */
  async release(call: WorkflowCall, hold: WorkflowHold): Promise<void> {
    try {
      if (hold.kind === 'lock') await hold.lock.release();
      if (hold.kind === 'transaction') await hold.transaction.rollback();
    } catch (error) {
      this.logger.error(messages.releaseFailed(call.tool.name, error));
    }
  }
}
