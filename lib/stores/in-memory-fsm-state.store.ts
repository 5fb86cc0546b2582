import { ageMs, checkNumericOption, count, type NumericOptionRange } from '../checks/numeric-option.check.js';
import type { OnApplicationShutdown } from '@nestjs/common';
import type {
  AtomicFsmStateStore,
  WorkflowClaimRequest,
  WorkflowClaimResult,
  WorkflowCommit,
  WorkflowSweepRequest,
} from './atomic-fsm-state-store.interface.js';
import { parseInstanceKey } from './fsm-instance-key.js';
import { copy, type InMemoryFsmEntry, isLeased, toSnapshot, toSummary } from './in-memory-fsm-entry.js';
import { isOpenTo, mayClaim } from './workflow-access.js';
import type { WorkflowSnapshot } from './fsm-state-store.interface.js';
import { InMemoryWorkflowTimers } from './in-memory-workflow-timers.js';
import type {
  WorkflowDueTimer,
  WorkflowPendingTimer,
  WorkflowTimerChanges,
  WorkflowTimerClaimRequest,
  FsmTimerStore,
} from './workflow-timer.interface.js';
import type { WorkflowTransitionRecord } from './workflow-transition-record.interface.js';
import { storeEventApplied, storeFull, storeHandleExists } from './stores.messages.js';
import type { FsmEventLog } from './workflow-event.interface.js';
import type { WorkflowCallReceipt, FsmReceiptLog } from './workflow-call-receipt.interface.js';
import { InMemoryWorkflowReceipts } from './in-memory-workflow-receipts.js';
import type { FsmAttemptLog, WorkflowAttemptRecord } from './workflow-attempt.interface.js';
import { instanceCount, instancePage, stateCounts, waitingPage } from './in-memory-instance.list.js';
import type {
  WorkflowInstanceCount,
  WorkflowHistoryPage,
  WorkflowInstancePage,
  WorkflowInstanceQuery,
  WorkflowInstanceSummary,
  WorkflowStateCount,
  FsmStateReader,
  WorkflowWaitingPage,
  WorkflowWaitingQuery,
} from './workflow-state-reader.interface.js';

/** Options of {@link InMemoryFsmStateStore}. */
export interface InMemoryFsmStateStoreOptions {
  /**
   * Most instances held at once. Idle instances are dropped first; when the store is still
   * full, creating an instance throws (live workflow state is never evicted).
   * @default 10_000
   */
  maxEntries?: number;
  /** An instance no call has claimed or written for this long is dropped. @default 86_400_000 (24 hours) */
  idleTtlMs?: number;
  /** Keep one history row per transition. @default false */
  history?: boolean;
  /** History rows kept per instance; older rows are dropped first. @default 1_000 */
  maxHistoryPerHandle?: number;
  /** Keep the refused and declined calls of each instance (with their message and their arguments, cut), for the workflow console. @default false */
  attempts?: boolean;
  /** Attempts kept per instance; older ones are dropped first. @default 50 */
  maxAttemptsPerInstance?: number;
  /** Clock in epoch milliseconds, for leases and idle expiry (tests inject a fake one). @default Date.now */
  clock?: () => number;
}

const MAX_SWEEP_INTERVAL_MS = 60_000;
const MIN_SWEEP_INTERVAL_MS = 1_000;

/**
 * The module's default store: workflow state in process memory, bounded in size and idle
 * time. It implements the atomic protocol (claims with leases), so concurrent calls on one
 * handle run the handler once within this process; state is lost on restart and is not
 * shared between processes (use `TypeOrmFsmStateStore` for that).
 */
export class InMemoryFsmStateStore
  implements AtomicFsmStateStore, FsmStateReader, FsmAttemptLog, FsmTimerStore, FsmEventLog, FsmReceiptLog, OnApplicationShutdown
{
  /** Whether refused and declined calls are kept (the `attempts` option). */
  readonly keepsAttempts: boolean;
  private readonly entries = new Map<string, InMemoryFsmEntry>();
  private readonly records = new Map<string, WorkflowTransitionRecord[]>();
  private readonly attempts = new Map<string, WorkflowAttemptRecord[]>();
  private readonly timers = new InMemoryWorkflowTimers();
  /** The idempotency keys of the outside events applied to each instance (they go with it). */
  private readonly events = new Map<string, Set<string>>();
  /** The receipts of keyed calls (they outlive their instance until they expire). */
  private readonly receipts = new InMemoryWorkflowReceipts();
  private readonly maxAttempts: number;
  private readonly maxEntries: number;
  private readonly idleTtlMs: number;
  private readonly keepHistory: boolean;
  private readonly maxHistoryPerHandle: number;
  private readonly clock: () => number;
  private readonly sweepTimer: NodeJS.Timeout;

  constructor(options: InMemoryFsmStateStoreOptions = {}) {
    const check = (name: keyof InMemoryFsmStateStoreOptions, value: number, range: NumericOptionRange) =>
      checkNumericOption(InMemoryFsmStateStore.name, name, value, range);
    this.maxEntries = check('maxEntries', options.maxEntries ?? 10_000, count());
    this.idleTtlMs = check('idleTtlMs', options.idleTtlMs ?? 86_400_000, ageMs());
    this.keepHistory = options.history ?? false;
    this.maxHistoryPerHandle = check('maxHistoryPerHandle', options.maxHistoryPerHandle ?? 1_000, count());
    this.keepsAttempts = options.attempts ?? false;
    this.maxAttempts = check('maxAttemptsPerInstance', options.maxAttemptsPerInstance ?? 50, count(10_000));
    this.clock = options.clock ?? Date.now;
    const interval = Math.max(MIN_SWEEP_INTERVAL_MS, Math.min(this.idleTtlMs, MAX_SWEEP_INTERVAL_MS));
    this.sweepTimer = setInterval(() => this.expireIdle(), interval);
    this.sweepTimer.unref();
  }

  /** Stops the sweep timer. */
  onApplicationShutdown(): void {
    clearInterval(this.sweepTimer);
  }

  /** @inheritdoc */
  /** Always up: the state is in this process. */
  async ping(): Promise<void> {}

  async load(key: string): Promise<WorkflowSnapshot | undefined> {
    const entry = this.live(key);
    return entry && toSnapshot(entry);
  }

  /** @inheritdoc */
  async save(key: string, snapshot: WorkflowSnapshot): Promise<void> {
    const entry = this.live(key);
    if (entry) {
      entry.state = snapshot.state;
      entry.context = copy(snapshot.context);
      entry.owner = snapshot.owner;
      entry.waiting = copy(snapshot.waiting);
      entry.team = snapshot.team;
      entry.updatedAt = Date.parse(snapshot.updatedAt);
      entry.touchedAt = this.clock();
      return;
    }
    this.insert(key, snapshot);
  }

  /** @inheritdoc */
  async create(
    key: string,
    snapshot: WorkflowSnapshot,
    record?: WorkflowTransitionRecord,
    timers?: WorkflowTimerChanges,
    receipt?: WorkflowCallReceipt,
  ): Promise<void> {
    if (this.live(key)) throw new Error(storeHandleExists(key));
    this.receipts.check(receipt, this.clock());
    this.insert(key, snapshot);
    this.timers.apply(key, timers);
    this.receipts.keep(receipt);
    if (record) this.record(record);
  }

  /** @inheritdoc */
  async claim(request: WorkflowClaimRequest): Promise<WorkflowClaimResult> {
    const now = this.clock();
    const entry = this.live(request.key);
    if (!entry) {
      if (!request.createWith) return { status: 'unknown' };
      const created = this.insert(request.key, request.createWith);
      created.leaseToken = request.token;
      created.leaseUntil = now + request.leaseMs;
      return { status: 'claimed', snapshot: toSnapshot(created), created: true };
    }
    if (!mayClaim(entry, request)) return { status: 'unknown' };
    if (request.allowedStates && !request.allowedStates.includes(entry.state)) {
      return { status: 'forbidden', state: entry.state };
    }
    if (isLeased(entry, now)) return { status: 'busy', state: entry.state };
    entry.leaseToken = request.token;
    entry.leaseUntil = now + request.leaseMs;
    entry.touchedAt = now;
    return { status: 'claimed', snapshot: toSnapshot(entry) };
  }

  /** @inheritdoc */
  async commit(key: string, token: string, commit: WorkflowCommit): Promise<boolean> {
    const entry = this.live(key);
    if (!entry || entry.leaseToken !== token) return false;
    const applied = commit.event && this.events.get(key);
    if (commit.event && applied?.has(commit.event.idempotencyKey)) throw new Error(storeEventApplied(key, commit.event.idempotencyKey));
    this.timers.check(key, commit.timers);
    this.receipts.check(commit.receipt, this.clock());
    this.timers.apply(key, commit.timers);
    this.receipts.keep(commit.receipt);
    if (commit.event) this.events.set(key, (applied ?? new Set()).add(commit.event.idempotencyKey));
    entry.state = commit.snapshot.state;
    entry.context = copy(commit.snapshot.context);
    entry.owner = commit.snapshot.owner ?? entry.owner;
    entry.waiting = copy(commit.snapshot.waiting);
    entry.team = commit.snapshot.team ?? entry.team;
    entry.updatedAt = Date.parse(commit.snapshot.updatedAt);
    entry.touchedAt = this.clock();
    entry.leaseToken = entry.leaseUntil = undefined;
    if (commit.record) this.record(commit.record);
    return true;
  }

  /** @inheritdoc */
  async hasEvent(key: string, idempotencyKey: string): Promise<boolean> {
    return Boolean(this.live(key) && this.events.get(key)?.has(idempotencyKey));
  }

  /** @inheritdoc */
  async findReceipt(requester: string, idempotencyKey: string, now: number): Promise<WorkflowCallReceipt | undefined> {
    return this.receipts.find(requester, idempotencyKey, now);
  }

  /** @inheritdoc */
  async sweepReceipts(now: number, limit: number): Promise<number> {
    return this.receipts.sweep(now, limit);
  }

  /** @inheritdoc */
  async claimDueTimers(request: WorkflowTimerClaimRequest): Promise<WorkflowDueTimer[]> {
    return this.timers.claimDue(request);
  }

  /** @inheritdoc */
  async dropTimer(key: string, id: string, token: string): Promise<void> {
    this.timers.drop(key, id, token);
  }

  /** @inheritdoc */
  async retryTimer(key: string, id: string, token: string, dueAt: number): Promise<void> {
    this.timers.retry(key, id, token, dueAt);
  }

  /** @inheritdoc */
  async pendingTimers(key: string): Promise<WorkflowPendingTimer[]> {
    return this.live(key) ? this.timers.pending(key) : [];
  }

  /** @inheritdoc */
  async pendingTimersOf(keys: readonly string[]): Promise<Map<string, WorkflowPendingTimer[]>> {
    const pending = await Promise.all(keys.map(async (key) => [key, await this.pendingTimers(key)] as const));
    return new Map(pending.filter(([, timers]) => timers.length > 0));
  }

  /** @inheritdoc */
  async sweep({ finished, idle, limit }: WorkflowSweepRequest): Promise<number> {
    const now = this.clock();
    const finalStates = new Map(finished?.machines.map(({ machine, states }) => [machine, new Set(states)]));
    const idleMachines = new Set(idle?.machines);
    let deleted = 0;
    for (const [key, entry] of this.entries) {
      if (deleted >= limit) {
        break;
      }
      if (isLeased(entry, now)) {
        continue;
      }
      const { machine } = parseInstanceKey(key);
      const isFinished = finished !== undefined && entry.updatedAt < finished.before && finalStates.get(machine)?.has(entry.state);
      const isIdle = idle !== undefined && entry.updatedAt < idle.before && idleMachines.has(machine);
      if (isFinished || isIdle) {
        this.drop(key);
        deleted += 1;
      }
    }
    return deleted;
  }

  /** @inheritdoc */
  async end(key: string, token: string, record?: WorkflowTransitionRecord): Promise<boolean> {
    if (this.live(key)?.leaseToken !== token) return false;
    await this.delete([key]);
    if (record) this.record(record);
    return true;
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) {
      this.entries.delete(key);
      this.attempts.delete(key);
      this.timers.forget(key);
      this.events.delete(key);
    }
  }

  /** @inheritdoc */
  async renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    const entry = this.live(key);
    if (!entry || entry.leaseToken !== token) return false;
    entry.leaseUntil = this.clock() + leaseMs;
    return true;
  }

  /** @inheritdoc */
  async release(key: string, token: string): Promise<void> {
    const entry = this.live(key);
    if (!entry || entry.leaseToken !== token) return;
    entry.leaseToken = entry.leaseUntil = undefined;
    entry.touchedAt = this.clock();
  }

  /** @inheritdoc */
  async loadMany(keys: readonly string[]): Promise<Map<string, WorkflowSnapshot>> {
    const snapshots = new Map<string, WorkflowSnapshot>();
    for (const key of keys) {
      const entry = this.live(key);
      if (entry) snapshots.set(key, toSnapshot(entry));
    }
    return snapshots;
  }

  /** @inheritdoc */
  async loadStates(keys: readonly string[]): Promise<Map<string, string>> {
    const states = new Map<string, string>();
    for (const key of keys) {
      const entry = this.live(key);
      if (entry) states.set(key, entry.state);
    }
    return states;
  }

  /** @inheritdoc */
  async history(key: string): Promise<WorkflowTransitionRecord[]> {
    return (this.records.get(key) ?? []).map(copy);
  }

  /** @inheritdoc */
  async listInstances(query: WorkflowInstanceQuery): Promise<WorkflowInstancePage> {
    return instancePage(this.summaries(), query);
  }

  /** @inheritdoc */
  async listWaiting(query: WorkflowWaitingQuery): Promise<WorkflowWaitingPage> {
    return waitingPage(this.summaries(), query, (key) => toSnapshot(this.entries.get(key)!));
  }

  /** @inheritdoc */
  async countInstances(query: WorkflowInstanceCount): Promise<number> {
    return instanceCount(this.summaries(), query);
  }

  /** @inheritdoc */
  async countStates(query: WorkflowInstanceCount): Promise<WorkflowStateCount[]> {
    return stateCounts(this.summaries(), query);
  }

  /** @inheritdoc */
  async recordAttempt(attempt: WorkflowAttemptRecord, caller: string | undefined, team?: string): Promise<boolean> {
    const entry = this.keepsAttempts ? this.live(attempt.key) : undefined;
    if (!entry || !isOpenTo(entry, { owner: caller, team })) return false;
    const rows = this.attempts.get(attempt.key) ?? [];
    rows.push(structuredClone(attempt));
    if (rows.length > this.maxAttempts) rows.splice(0, rows.length - this.maxAttempts);
    this.attempts.set(attempt.key, rows);
    return true;
  }

  /** @inheritdoc */
  async recentAttempts(key: string, limit: number): Promise<WorkflowAttemptRecord[]> {
    const rows = this.attempts.get(key) ?? [];
    return rows.slice(Math.max(0, rows.length - limit)).map((row) => structuredClone(row));
  }

  /** @inheritdoc */
  async recentHistory(key: string, limit: number): Promise<WorkflowHistoryPage> {
    const rows = this.records.get(key) ?? [];
    return { entries: rows.slice(Math.max(0, rows.length - limit)).map(copy), truncated: rows.length > limit };
  }

  /** The live instances, as a list shows them. */
  private *summaries(): Generator<WorkflowInstanceSummary> {
    for (const key of [...this.entries.keys()]) {
      const entry = this.live(key);
      if (entry) yield toSummary(key, entry);
    }
  }

  private live(key: string): InMemoryFsmEntry | undefined {
    const entry = this.entries.get(key);
    if (entry && this.isExpired(entry, this.clock())) {
      this.drop(key);
      return undefined;
    }
    return entry;
  }

  private insert(key: string, snapshot: WorkflowSnapshot): InMemoryFsmEntry {
    if (this.entries.size >= this.maxEntries) {
      this.expireIdle();
      if (this.entries.size >= this.maxEntries) throw new Error(storeFull(this.maxEntries));
    }
    const entry: InMemoryFsmEntry = {
      state: snapshot.state,
      context: copy(snapshot.context),
      owner: snapshot.owner,
      waiting: copy(snapshot.waiting),
      team: snapshot.team,
      updatedAt: Date.parse(snapshot.updatedAt),
      touchedAt: this.clock(),
    };
    this.entries.set(key, entry);
    return entry;
  }

  private record(record: WorkflowTransitionRecord): void {
    if (!this.keepHistory) return;
    const rows = this.records.get(record.key) ?? [];
    rows.push(copy(record));
    if (rows.length > this.maxHistoryPerHandle) rows.splice(0, rows.length - this.maxHistoryPerHandle);
    this.records.set(record.key, rows);
  }

  private isExpired(entry: InMemoryFsmEntry, now: number): boolean {
    return !isLeased(entry, now) && now - entry.touchedAt >= this.idleTtlMs;
  }

  private expireIdle(): void {
    const now = this.clock();
    for (const [key, entry] of this.entries) {
      if (this.isExpired(entry, now)) this.drop(key);
    }
  }

  private drop(key: string): void {
    this.entries.delete(key);
    this.timers.forget(key);
    this.events.delete(key);
    this.records.delete(key);
    this.attempts.delete(key);
  }
}
