import {
  isAtomicFsmStateStore,
  type AtomicFsmStateStore,
  type WorkflowClaimRequest,
  type WorkflowSweepRequest,
} from './atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot, FsmStateStore } from './fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from './workflow-transition-record.interface.js';
import type { FsmLocker, FsmLockOutcome } from './locks/fsm-instance-lock.interface.js';
import { LeaseLocker } from './locks/lease.locker.js';
import { MutexLocker } from './locks/mutex.locker.js';
import { TransactionLocker } from './locks/transaction.locker.js';
import {
  isTransactionalFsmStateStore,
  type FsmTransaction,
  type TransactionalFsmStateStore,
} from './transactional-fsm-state-store.interface.js';
import { isWorkflowAttemptLog, type FsmAttemptLog, type WorkflowAttemptRecord } from './workflow-attempt.interface.js';
import {
  isWorkflowStateReader,
  type WorkflowInstanceCount,
  type WorkflowHistoryPage,
  type WorkflowInstancePage,
  type WorkflowInstanceQuery,
  type WorkflowStateCount,
  type FsmStateReader,
  type WorkflowWaitingPage,
  type WorkflowWaitingQuery,
} from './workflow-state-reader.interface.js';
import { storeCannotListWaiting, storeCannotRead } from './stores.messages.js';
import { isWorkflowEventLog, type FsmEventLog } from './workflow-event.interface.js';
import { isWorkflowCallReceiptLog, type WorkflowCallReceipt, type FsmReceiptLog } from './workflow-call-receipt.interface.js';
import {
  isWorkflowTimerStore,
  type WorkflowDueTimer,
  type WorkflowPendingTimer,
  type WorkflowTimerChanges,
  type WorkflowTimerClaimRequest,
  type FsmTimerStore,
} from './workflow-timer.interface.js';

/** The key a health check loads from a store without `ping` (never an instance key: every one has a colon). */
const HEALTH_PROBE_KEY = 'nestjs-mcp-fsm health probe';

/** What the module's store can do beyond the full protocol every store gets through {@link FsmStoreAdapter}. */
interface FsmStoreSupport {
  /** Transactional mode: the claim as a row lock in a transaction the handler joins. */
  readonly transactions: boolean;
  /** Deleting instances (`McpWorkflowService.end`, a closed session's instances). */
  readonly delete: boolean;
  /** Retention sweeps. */
  readonly sweep: boolean;
  /** The read methods of the workflow console (`FsmStateReader`). */
  readonly read: boolean;
  /** Listing the instances with a waiting request (`FsmStateReader.listWaiting`). */
  readonly waiting: boolean;
  /** Keeping refused and declined calls (`FsmAttemptLog`, turned on). */
  readonly attempts: boolean;
  /** Durable timers, the deadlines of `after` transitions (`FsmTimerStore` on an atomic store). */
  readonly timers: boolean;
  /** Receipts of outside events, applied once per idempotency key (`FsmEventLog` on an atomic store). */
  readonly events: boolean;
  /** Receipts of keyed calls, committed once per requester and idempotency key (`FsmReceiptLog` on an atomic store). */
  readonly receipts: boolean;
}

/**
 * The module's store as the rest of the module uses it: any {@link FsmStateStore} wrapped
 * once, at its provider, in the full protocol. An atomic store's claims are leases (renewed
 * while a handler runs), a transactional store also locks rows in a transaction, and a plain
 * `load`/`save` store gets an in-process mutex per instance (one process only). What a store
 * cannot do at all is in {@link FsmStoreAdapter.supports}; the rest answers as an empty store
 * would (no history, nothing deleted).
 */
export class FsmStoreAdapter {
  /** What the store can do, found once. */
  readonly supports: FsmStoreSupport;
  /** The store when it is atomic. */
  private readonly atomic?: AtomicFsmStateStore;
  /** The store when it is transactional. */
  private readonly transactional?: TransactionalFsmStateStore;
  /** The store when it has the read methods. */
  private readonly reader?: FsmStateReader;
  /** The store when it keeps attempts. */
  private readonly attemptLog?: FsmAttemptLog;
  /** The store when it keeps timers. */
  private readonly timerStore?: FsmTimerStore;
  /** The store when it keeps the receipts of outside events. */
  private readonly eventLog?: FsmEventLog;
  /** The store when it keeps the receipts of keyed calls. */
  private readonly receiptLog?: FsmReceiptLog;
  private readonly locker: FsmLocker;
  private readonly transactionLocker?: FsmLocker;

  constructor(readonly store: FsmStateStore) {
    if (isAtomicFsmStateStore(store)) {
      this.atomic = store;
      this.locker = new LeaseLocker(store);
    } else {
      this.locker = new MutexLocker(store);
    }
    if (isTransactionalFsmStateStore(store)) {
      this.transactional = store;
      this.transactionLocker = new TransactionLocker(store);
    }
    if (isWorkflowStateReader(store)) {
      this.reader = store;
    }
    if (isWorkflowAttemptLog(store)) {
      this.attemptLog = store;
    }
    if (this.atomic && isWorkflowTimerStore(store)) {
      this.timerStore = store;
    }
    if (this.atomic && isWorkflowEventLog(store)) {
      this.eventLog = store;
    }
    if (this.atomic && isWorkflowCallReceiptLog(store)) {
      this.receiptLog = store;
    }
    this.supports = {
      transactions: Boolean(this.transactional),
      delete: Boolean(this.atomic?.delete),
      sweep: Boolean(this.atomic?.sweep),
      read: Boolean(this.reader),
      waiting: Boolean(this.reader?.listWaiting),
      attempts: Boolean(this.attemptLog),
      timers: Boolean(this.timerStore),
      events: Boolean(this.eventLog),
      receipts: Boolean(this.receiptLog),
    };
  }

  /** The store's class name, for messages. */
  get name(): string {
    return this.store.constructor.name;
  }

  /** Resolves when the store can serve calls, rejects when it cannot: its `ping`, or a `load` of a key no instance has. */
  async ping(): Promise<void> {
    if (this.store.ping) {
      return this.store.ping();
    }
    await this.store.load(HEALTH_PROBE_KEY);
  }

  /** The snapshot of `key`, or `undefined` when there is none. */
  load(key: string): Promise<WorkflowSnapshot | undefined> {
    return this.store.load(key);
  }

  /**
   * Creates a new instance, with its initial timers on a store that keeps timers and a keyed
   * call's receipt on one that keeps receipts (a plain store saves it: the caller made sure it is new).
   */
  create(
    key: string,
    snapshot: WorkflowSnapshot,
    record: WorkflowTransitionRecord,
    timers?: WorkflowTimerChanges,
    receipt?: WorkflowCallReceipt,
  ): Promise<void> {
    if (!this.atomic) return this.store.save(key, snapshot);
    if (receipt) return this.atomic.create(key, snapshot, record, timers, receipt);
    return timers ? this.atomic.create(key, snapshot, record, timers) : this.atomic.create(key, snapshot, record);
  }

  /** The store's timers (needs `supports.timers`). */
  get timers(): FsmTimerStore {
    return this.timerStore!;
  }

  /** Claims due timers (needs `supports.timers`). */
  claimDueTimers(request: WorkflowTimerClaimRequest): Promise<WorkflowDueTimer[]> {
    return this.timers.claimDueTimers(request);
  }

  /** The pending timers of an instance (none when the store keeps no timers). */
  async pendingTimers(key: string): Promise<WorkflowPendingTimer[]> {
    return this.timerStore ? this.timerStore.pendingTimers(key) : [];
  }

  /** The pending timers of many instances, by key (keys with none left out; empty when the store keeps no timers). */
  async pendingTimersOf(keys: readonly string[]): Promise<Map<string, WorkflowPendingTimer[]>> {
    const timers = this.timerStore;
    if (!timers || !keys.length) return new Map();
    if (timers.pendingTimersOf) return timers.pendingTimersOf(keys);
    const pending = await Promise.all(keys.map(async (key) => [key, await timers.pendingTimers(key)] as const));
    return new Map(pending.filter(([, list]) => list.length > 0));
  }

  /** The store's receipts of outside events (needs `supports.events`). */
  get events(): FsmEventLog {
    return this.eventLog!;
  }

  /** The store's receipts of keyed calls (needs `supports.receipts`). */
  get receipts(): FsmReceiptLog {
    return this.receiptLog!;
  }

  /**
   * Takes the instance of `request` for one call: a lease, an in-process mutex, or (when
   * `transactional`, which needs `supports.transactions`) a row lock in a new transaction.
   */
  acquire(request: WorkflowClaimRequest, transactional = false): Promise<FsmLockOutcome> {
    return (transactional ? this.transactionLocker! : this.locker).acquire(request);
  }

  /** Opens a transaction a transactional start tool creates its instance in (needs `supports.transactions`). */
  beginTransaction(): Promise<FsmTransaction> {
    return this.transactional!.beginTransaction();
  }

  /** The snapshots of many instances, in one round trip when the store has `loadMany` (absent ones left out). */
  async loadMany(keys: readonly string[]): Promise<Map<string, WorkflowSnapshot>> {
    if (!keys.length) return new Map();
    if (this.atomic) return this.atomic.loadMany(keys);
    const snapshots = await Promise.all(keys.map((key) => this.store.load(key)));
    return new Map(keys.flatMap((key, index) => (snapshots[index] ? [[key, snapshots[index]] as const] : [])));
  }

  /** The states of many instances, in as few round trips as the store allows (absent ones left out). */
  async loadStates(keys: readonly string[]): Promise<Map<string, string>> {
    const { atomic } = this;
    if (atomic?.loadStates) {
      return atomic.loadStates(keys);
    }
    if (atomic) {
      return new Map([...(await atomic.loadMany(keys))].map(([key, snapshot]) => [key, snapshot.state]));
    }
    const snapshots = await Promise.all(keys.map((key) => this.store.load(key)));
    return new Map(keys.flatMap((key, index) => (snapshots[index] ? [[key, snapshots[index].state] as const] : [])));
  }

  /** The instance's transitions, oldest first (empty when the store keeps none). */
  async history(key: string): Promise<WorkflowTransitionRecord[]> {
    return this.atomic ? this.atomic.history(key) : [];
  }

  /** One page of instances, newest first; throws, naming the methods to implement, when the store cannot (`supports.read`). */
  async listInstances(query: WorkflowInstanceQuery): Promise<WorkflowInstancePage> {
    return this.readable().listInstances(query);
  }

  /** The most recent `limit` transitions of an instance, oldest first; throws like {@link listInstances} when the store cannot. */
  async recentHistory(key: string, limit: number): Promise<WorkflowHistoryPage> {
    return this.readable().recentHistory(key, limit);
  }

  /** One page of the instances of a machine with a waiting request, newest first; throws, naming the method, when the store cannot (`supports.waiting`). */
  async listWaiting(query: WorkflowWaitingQuery): Promise<WorkflowWaitingPage> {
    if (!this.reader?.listWaiting) throw new Error(storeCannotListWaiting(this.name));
    return this.reader.listWaiting(query);
  }

  /** How many instances match, up to `query.max`; `undefined` when the store cannot count. */
  async countInstances(query: WorkflowInstanceCount): Promise<number | undefined> {
    return this.reader?.countInstances?.(query);
  }

  /** How many instances match in each machine and state, over at most `query.max`; `undefined` when the store cannot count them. */
  async countStates(query: WorkflowInstanceCount): Promise<WorkflowStateCount[] | undefined> {
    return this.reader?.countStates?.(query);
  }

  /** Records a refused or declined call on an instance `caller` may see (see `FsmAttemptLog`); `false` when the store keeps none. */
  async recordAttempt(attempt: WorkflowAttemptRecord, caller: string | undefined, team?: string): Promise<boolean> {
    return this.attemptLog ? this.attemptLog.recordAttempt(attempt, caller, team) : false;
  }

  /** The most recent `limit` attempts of an instance, oldest first (none when the store keeps none). */
  async recentAttempts(key: string, limit: number): Promise<WorkflowAttemptRecord[]> {
    return this.attemptLog ? this.attemptLog.recentAttempts(key, limit) : [];
  }

  /** Deletes instances (their history stays); nothing when the store cannot (`supports.delete`). */
  async delete(keys: readonly string[]): Promise<void> {
    await this.atomic?.delete?.(keys);
  }

  private readable(): FsmStateReader {
    if (!this.reader) throw new Error(storeCannotRead(this.name));
    return this.reader;
  }

  /** One retention sweep: how many instances it deleted (none when the store cannot, `supports.sweep`). */
  async sweep(request: WorkflowSweepRequest): Promise<number> {
    return (await this.atomic?.sweep?.(request)) ?? 0;
  }
}
