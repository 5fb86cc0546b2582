import type { OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import type {
  WorkflowClaimRequest,
  WorkflowClaimResult,
  WorkflowCommit,
  WorkflowSweepRequest,
} from '../atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from '../workflow-transition-record.interface.js';
import { storeHandleExists, storeTransactionExpired } from '../stores.messages.js';
import type { FsmTransaction, TransactionalFsmStateStore } from '../transactional-fsm-state-store.interface.js';
import type { FsmAttemptLog, WorkflowAttemptRecord } from '../workflow-attempt.interface.js';
import type { FsmEventLog } from '../workflow-event.interface.js';
import type { WorkflowCallReceipt, FsmReceiptLog } from '../workflow-call-receipt.interface.js';
import type {
  WorkflowDueTimer,
  WorkflowPendingTimer,
  WorkflowTimerChanges,
  WorkflowTimerClaimRequest,
  FsmTimerStore,
} from '../workflow-timer.interface.js';
import type {
  WorkflowHistoryPage,
  WorkflowInstanceCount,
  WorkflowInstancePage,
  WorkflowInstanceQuery,
  WorkflowStateCount,
  WorkflowWaitingPage,
  WorkflowWaitingQuery,
  FsmStateReader,
} from '../workflow-state-reader.interface.js';
import { checkNumericOption, count } from '../../checks/numeric-option.check.js';
import { BoundedQueries } from './bounded-queries.js';
import { FsmAttemptSql } from './fsm-attempt.sql.js';
import { FsmClaimSql } from './fsm-claim.sql.js';
import { FsmEventSql } from './fsm-event.sql.js';
import { FsmReceiptSql } from './fsm-receipt.sql.js';
import { FsmInstanceListSql } from './fsm-instance-list.sql.js';
import { notTaken, storedSnapshot } from './fsm-state.rows.js';
import { FsmStateSql } from './fsm-state.sql.js';
import { FsmTimerSql } from './fsm-timer.sql.js';
import { QueryDeadline } from './query-deadline.js';
import { TransactionLimits } from './transaction-limits.js';
import {
  DEFAULT_MAX_ATTEMPTS_PER_INSTANCE,
  DEFAULT_WORKFLOW_ATTEMPT_TABLE,
  DEFAULT_WORKFLOW_EVENT_TABLE,
  DEFAULT_WORKFLOW_RECEIPT_TABLE,
  DEFAULT_WORKFLOW_STATE_TABLE,
  DEFAULT_WORKFLOW_TIMER_TABLE,
  DEFAULT_WORKFLOW_TRANSITION_TABLE,
  MAX_ATTEMPTS_PER_INSTANCE,
  type TypeOrmFsmStateStoreOptions,
} from './typeorm-fsm-state-store-options.interface.js';
import { TypeOrmFsmTransaction } from './typeorm-fsm.transaction.js';

/**
 * Workflow state in the application's own database, through its TypeORM `DataSource`: PostgreSQL,
 * MySQL/MariaDB or better-sqlite3, exactly once across processes. Round trips, time limits and
 * SQLite's one connection: see docs/stores.md#typeormfsmstatestore-in-detail.
 *
 * @example
 * TypeOrmModule.forRoot({ ..., migrations: [CreateMcpFsmState1764460800000, AddMcpFsmContext1764547200000, AddMcpFsmTeam1766016000000, AddMcpFsmApprovals1766102400000], migrationsRun: true });
 * McpModule.forRootAsync({
 *   inject: [DataSource],
 *   useFactory: (dataSource: DataSource) => ({ name: 'billing', version: '1.0.0',
 *     store: new TypeOrmFsmStateStore(dataSource, { history: true }) }),
 * });
 */
export class TypeOrmFsmStateStore
  implements TransactionalFsmStateStore, FsmStateReader, FsmAttemptLog, FsmTimerStore, FsmEventLog, FsmReceiptLog, OnApplicationBootstrap
{
  /** Whether refused and declined calls are kept (the `attempts` option). */
  readonly keepsAttempts: boolean;
  private readonly queries: BoundedQueries;
  private readonly sql: FsmStateSql;
  private readonly claimSql: FsmClaimSql;
  private readonly listSql: FsmInstanceListSql;
  private readonly attemptSql: FsmAttemptSql;
  private readonly timerSql: FsmTimerSql;
  private readonly eventSql: FsmEventSql;
  private readonly receiptSql: FsmReceiptSql;
  private readonly keepHistory: boolean;
  private readonly maxAttempts: number;
  private readonly limits: TransactionLimits;

  constructor(
    private readonly dataSource: DataSource,
    options: TypeOrmFsmStateStoreOptions = {},
  ) {
    const queries = new BoundedQueries(dataSource, TypeOrmFsmStateStore.name, options.timeoutMs);
    this.queries = queries;
    const stateTable = queries.table(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE);
    this.sql = new FsmStateSql(queries.dialect, stateTable, queries.table(options.historyTableName ?? DEFAULT_WORKFLOW_TRANSITION_TABLE));
    this.claimSql = new FsmClaimSql(queries.dialect, stateTable);
    this.listSql = new FsmInstanceListSql(queries.dialect, stateTable);
    this.attemptSql = new FsmAttemptSql(
      queries.dialect,
      stateTable,
      queries.table(options.attemptTableName ?? DEFAULT_WORKFLOW_ATTEMPT_TABLE),
    );
    this.timerSql = new FsmTimerSql(queries.dialect, queries.table(options.timerTableName ?? DEFAULT_WORKFLOW_TIMER_TABLE), stateTable);
    this.eventSql = new FsmEventSql(queries.dialect, queries.table(options.eventTableName ?? DEFAULT_WORKFLOW_EVENT_TABLE));
    this.receiptSql = new FsmReceiptSql(queries.dialect, queries.table(options.receiptTableName ?? DEFAULT_WORKFLOW_RECEIPT_TABLE));
    this.keepHistory = options.history ?? false;
    this.keepsAttempts = options.attempts ?? false;
    this.maxAttempts = checkNumericOption(
      TypeOrmFsmStateStore.name,
      'maxAttemptsPerInstance',
      options.maxAttemptsPerInstance ?? DEFAULT_MAX_ATTEMPTS_PER_INSTANCE,
      count(MAX_ATTEMPTS_PER_INSTANCE),
    );
    this.limits = new TransactionLimits(queries.dialect, queries.timeoutMs);
  }

  /**
   * Checks, when the application starts, that the state table has every column this version
   * uses, and that the attempt table exists when `attempts` is on (a forgotten migration fails
   * the bootstrap with the migrations to run, instead of every gated call failing closed).
   * Skipped while the DataSource is not initialized yet.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.session('the schema check', async (runner) => {
        await this.sql.assertSchema(runner);
        if (this.keepsAttempts) await this.attemptSql.assertSchema(runner);
      });
    }
  }

  /**
   * One `SELECT 1` on a connection of the pool (on better-sqlite3: in its turn), bounded by
   * `timeoutMs` like every other operation: a database that is away rejects within it.
   */
  async ping(): Promise<void> {
    await this.session('ping', (runner) => runner.query('SELECT 1'));
  }

  /** @inheritdoc */
  load(key: string): Promise<WorkflowSnapshot | undefined> {
    return this.session('load', (runner) => this.sql.load(runner, key));
  }

  /** Upserts the snapshot (one statement); a lease on the instance is kept. */
  save(key: string, snapshot: WorkflowSnapshot): Promise<void> {
    return this.session('save', (runner) => this.sql.save(runner, key, snapshot));
  }

  /** @inheritdoc */
  async create(
    key: string,
    snapshot: WorkflowSnapshot,
    record?: WorkflowTransitionRecord,
    timers?: WorkflowTimerChanges,
    receipt?: WorkflowCallReceipt,
  ): Promise<void> {
    const kept = this.kept(record);
    const created = await this.session(
      'create',
      async (runner) => {
        const inserted = await this.sql.insert(runner, key, snapshot, { record: kept });
        if (inserted && timers) await this.timerSql.apply(runner, key, timers, true);
        if (inserted && receipt) await this.receiptSql.record(runner, receipt);
        return inserted;
      },
      timers !== undefined || receipt !== undefined || (kept !== undefined && this.sql.needsTransactionForRecord()),
    );
    if (!created) throw new Error(storeHandleExists(key));
  }

  /**
   * One conditional UPDATE takes the lease (see the class for MySQL). When it matches no
   * row, one SELECT tells `forbidden`, `busy` or `unknown`, or an INSERT creates the leased
   * instance from `createWith`; a concurrent creator wins the race and this call gets the
   * diagnosis of its row.
   */
  claim(request: WorkflowClaimRequest): Promise<WorkflowClaimResult> {
    return this.session('claim', async (runner) => {
      const now = Date.now();
      const lease = { token: request.token, until: now + request.leaseMs };
      const snapshot = await this.claimSql.claim(runner, request, lease, now);
      if (snapshot) return { status: 'claimed', snapshot };
      const row = await this.sql.inspect(runner, request.key);
      if (row) return notTaken(row, request, now);
      if (!request.createWith) return { status: 'unknown' };
      if (await this.sql.insert(runner, request.key, request.createWith, { lease })) {
        return { status: 'claimed', snapshot: storedSnapshot(request.createWith), created: true };
      }
      const raced = await this.sql.inspect(runner, request.key);
      return raced ? notTaken(raced, request, now) : { status: 'unknown' };
    });
  }

  /** @inheritdoc */
  commit(key: string, token: string, commit: WorkflowCommit): Promise<boolean> {
    const record = this.kept(commit.record);
    const { timers, event, receipt } = commit;
    return this.session(
      'commit',
      async (runner) => {
        const updated = await this.sql.update(runner, key, token, commit.snapshot, record);
        if (updated && timers) await this.timerSql.apply(runner, key, timers);
        if (updated && event) await this.eventSql.record(runner, key, event, Date.parse(commit.snapshot.updatedAt));
        if (updated && receipt) await this.receiptSql.record(runner, receipt);
        return updated;
      },
      timers !== undefined ||
        event !== undefined ||
        receipt !== undefined ||
        (record !== undefined && this.sql.needsTransactionForRecord()),
    );
  }

  /** One indexed statement (two in one transaction on MySQL/MariaDB); see `FsmTimerSql.claimDue`. */
  claimDueTimers(request: WorkflowTimerClaimRequest): Promise<WorkflowDueTimer[]> {
    return this.session('claimDueTimers', (runner) => this.timerSql.claimDue(runner, request), this.timerSql.dialect === 'mysql');
  }

  /** @inheritdoc */
  dropTimer(key: string, id: string, token: string): Promise<void> {
    return this.session('dropTimer', (runner) => this.timerSql.drop(runner, key, id, token));
  }

  /** @inheritdoc */
  retryTimer(key: string, id: string, token: string, dueAt: number): Promise<void> {
    return this.session('retryTimer', (runner) => this.timerSql.retry(runner, key, id, token, dueAt));
  }

  /** @inheritdoc */
  pendingTimers(key: string): Promise<WorkflowPendingTimer[]> {
    return this.session('pendingTimers', (runner) => this.timerSql.pending(runner, key));
  }

  /** @inheritdoc */
  pendingTimersOf(keys: readonly string[]): Promise<Map<string, WorkflowPendingTimer[]>> {
    return this.session('pendingTimersOf', (runner) => this.timerSql.pendingOf(runner, keys));
  }

  /** @inheritdoc */
  assertTimerSchema(): Promise<void> {
    return this.session('the timer schema check', (runner) => this.timerSql.assertSchema(runner));
  }

  /** One primary-key lookup in the receipt table. */
  hasEvent(key: string, idempotencyKey: string): Promise<boolean> {
    return this.session('hasEvent', (runner) => this.eventSql.has(runner, key, idempotencyKey));
  }

  /** @inheritdoc */
  assertEventSchema(): Promise<void> {
    return this.session('the event schema check', (runner) => this.eventSql.assertSchema(runner));
  }

  /** One primary-key lookup in the receipt table of keyed calls. */
  findReceipt(requester: string, idempotencyKey: string, now: number): Promise<WorkflowCallReceipt | undefined> {
    return this.session('findReceipt', (runner) => this.receiptSql.find(runner, requester, idempotencyKey, now));
  }

  /** One DELETE of at most `limit` expired receipts. */
  sweepReceipts(now: number, limit: number): Promise<number> {
    return this.session('sweepReceipts', (runner) => this.receiptSql.sweep(runner, now, limit));
  }

  /** @inheritdoc */
  assertReceiptSchema(): Promise<void> {
    return this.session('the receipt schema check', (runner) => this.receiptSql.assertSchema(runner));
  }

  /**
   * Deletes instances, with their attempts and, in the same transaction, their timers (their
   * history stays). The timers are left alone while the timer table is not in use (no machine
   * has `after`, so there are none).
   */
  delete(keys: readonly string[]): Promise<void> {
    return this.session(
      'delete',
      async (runner) => {
        await this.sql.delete(runner, keys);
        await this.timerSql.forget(runner, keys);
        if (this.keepsAttempts) await this.attemptSql.forget(runner, keys);
      },
      this.timerSql.inUse,
    );
  }

  /** @inheritdoc (one transaction: the conditional DELETE, then the history row, the timers and the attempts). */
  end(key: string, token: string, record?: WorkflowTransitionRecord): Promise<boolean> {
    const kept = this.kept(record);
    return this.session(
      'end',
      async (runner) => {
        if (!(await this.sql.deleteLeased(runner, key, token))) return false;
        if (kept) await this.sql.insertRecord(runner, kept);
        await this.timerSql.forget(runner, [key]);
        if (this.keepsAttempts) await this.attemptSql.forget(runner, [key]);
        return true;
      },
      true,
    );
  }

  /** @inheritdoc; the timers of the instances it deletes go in the same transaction (see {@link delete}). */
  sweep(request: WorkflowSweepRequest): Promise<number> {
    return this.session(
      'sweep',
      async (runner) => {
        const { deleted, picked } = await this.sql.sweep(runner, request, Date.now());
        if (deleted > 0) await this.timerSql.forget(runner, picked);
        if (deleted > 0 && this.keepsAttempts) await this.attemptSql.forget(runner, picked);
        return deleted;
      },
      this.timerSql.inUse,
    );
  }

  /** @inheritdoc */
  renew(key: string, token: string, leaseMs: number): Promise<boolean> {
    return this.session('renew', (runner) => this.sql.renew(runner, key, token, Date.now() + leaseMs));
  }

  /** @inheritdoc */
  release(key: string, token: string): Promise<void> {
    return this.session('release', (runner) => this.sql.release(runner, key, token));
  }

  /** @inheritdoc */
  loadMany(keys: readonly string[]): Promise<Map<string, WorkflowSnapshot>> {
    return this.session('loadMany', (runner) => this.sql.loadMany(runner, keys));
  }

  /** @inheritdoc */
  loadStates(keys: readonly string[]): Promise<Map<string, string>> {
    return this.session('loadStates', (runner) => this.sql.loadStates(runner, keys));
  }

  /** @inheritdoc */
  async history(key: string): Promise<WorkflowTransitionRecord[]> {
    return this.keepHistory ? this.session('history', (runner) => this.sql.records(runner, key)) : [];
  }

  /** One SELECT of `limit + 1` summary rows (see docs/console.md#the-store-methods-behind-it for the index it uses). */
  listInstances(query: WorkflowInstanceQuery): Promise<WorkflowInstancePage> {
    return this.session('listInstances', (runner) => this.listSql.list(runner, query));
  }

  /** One SELECT of `limit + 1` rows with a waiting request (see docs/stores.md for the index it uses). */
  listWaiting(query: WorkflowWaitingQuery): Promise<WorkflowWaitingPage> {
    return this.session('listWaiting', (runner) => this.listSql.listWaiting(runner, query));
  }

  /** One SELECT that counts at most `query.max` rows. */
  countInstances(query: WorkflowInstanceCount): Promise<number> {
    return this.session('countInstances', (runner) => this.listSql.count(runner, query));
  }

  /** One SELECT that groups at most `query.max` rows by machine and state. */
  countStates(query: WorkflowInstanceCount): Promise<WorkflowStateCount[]> {
    return this.session('countStates', (runner) => this.listSql.countStates(runner, query));
  }

  /**
   * One INSERT … SELECT that never locks the state row, then (when it inserted) one DELETE of the
   * instance's rows beyond `maxAttemptsPerInstance`, each committed on its own so the bound holds
   * under concurrent writes (see `FsmAttemptSql`); nothing when `attempts` is off.
   */
  async recordAttempt(attempt: WorkflowAttemptRecord, caller: string | undefined, team?: string): Promise<boolean> {
    if (!this.keepsAttempts) return false;
    return this.session('recordAttempt', async (runner) => {
      const inserted = await this.attemptSql.insert(runner, attempt, { owner: caller, team });
      if (inserted) await this.attemptSql.trim(runner, attempt.key, this.maxAttempts);
      return inserted;
    });
  }

  /** @inheritdoc */
  async recentAttempts(key: string, limit: number): Promise<WorkflowAttemptRecord[]> {
    if (!this.keepsAttempts) return [];
    return this.session('recentAttempts', (runner) => this.attemptSql.recent(runner, key, limit));
  }

  /** @inheritdoc */
  async recentHistory(key: string, limit: number): Promise<WorkflowHistoryPage> {
    if (!this.keepHistory) return { entries: [], truncated: false };
    return this.session('recentHistory', (runner) => this.sql.recentRecords(runner, key, limit));
  }

  /**
   * Opens a transaction on a QueryRunner of its own, with the server-side limits (see the
   * class). Waiting for the connection (on better-sqlite3: for the store's other work to end,
   * then it holds the shared connection until commit or rollback) and BEGIN take at most
   * `timeoutMs`; the transaction then has `timeoutMs` until its COMMIT.
   */
  async beginTransaction(): Promise<FsmTransaction> {
    const { queries } = this;
    const freeTurn = queries.freeTurn();
    // A free turn on better-sqlite3 needs no deadline: BEGIN runs synchronously.
    const opening = freeTurn ? undefined : queries.deadline('beginTransaction');
    let endTurn = freeTurn ?? (() => {});
    let runner: QueryRunner | undefined;
    try {
      if (opening) endTurn = await queries.turn(opening);
      runner = this.dataSource.createQueryRunner();
      const begun = this.limits.begin(runner);
      await (opening ? queries.bounded(opening, begun) : begun);
    } catch (error) {
      if (runner) queries.abandon(runner, opening);
      endTurn();
      throw error;
    } finally {
      opening?.clear();
    }
    return new TypeOrmFsmTransaction(runner, {
      sql: this.sql,
      timerSql: this.timerSql,
      eventSql: this.eventSql,
      receiptSql: this.receiptSql,
      history: this.keepHistory,
      limits: this.limits,
      queries,
      deadline: new QueryDeadline(queries.timeoutMs, () => storeTransactionExpired(queries.timeoutMs)),
      onClose: endTurn,
    });
  }

  private kept(record: WorkflowTransitionRecord | undefined): WorkflowTransitionRecord | undefined {
    return this.keepHistory ? record : undefined;
  }

  /**
   * Runs one store operation within `timeoutMs` (see `BoundedQueries.run`), in a transaction
   * with the server-side limits when `transaction`.
   */
  private session<T>(operation: string, work: (runner: QueryRunner) => Promise<T>, transaction = false): Promise<T> {
    return this.queries.run(operation, work, { transaction: transaction ? this.limits : undefined });
  }
}
