import type { OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import type { WorkflowClaimRequest, WorkflowClaimResult, WorkflowCommit, WorkflowSweepRequest } from '../atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from '../fsm-transition-record.interface.js';
import { storeHandleExists, storeTransactionExpired } from '../stores.messages.js';
import type { WorkflowTransaction, TransactionalWorkflowStateStore } from '../transactional-fsm-state-store.interface.js';
import { BoundedQueries } from './bounded-queries.js';
import { FsmStateSql, notTaken, storedSnapshot } from './fsm-state.sql.js';
import { QueryDeadline } from './query-deadline.js';
import { TransactionLimits } from './transaction-limits.js';
import {
  DEFAULT_WORKFLOW_STATE_TABLE,
  DEFAULT_WORKFLOW_TRANSITION_TABLE,
  type TypeOrmWorkflowStateStoreOptions,
} from './typeorm-fsm-state-store-options.interface.js';
import { TypeOrmFsmTransaction } from './typeorm-fsm-state.transaction.js';

/**
 * Workflow state in the application's own database, through its TypeORM `DataSource`
 * (plain, or injected from `@nestjs/typeorm`): PostgreSQL, MySQL/MariaDB or better-sqlite3.
 * The tables come from the shipped migrations, in this order: `CreateMcpFsmState1764460800000`
 * (or `createWorkflowStateMigration(options)`), then `AddMcpFsmContext1764547200000` (or
 * `createWorkflowContextMigration(options)`, which adds the `context` column of 0.2); `synchronize`
 * is not needed. Contexts are stored as JSON text. The store never
 * initializes or destroys the DataSource, and database errors are thrown, never swallowed.
 *
 * Round trips per operation (history off): `claim` 1 (MySQL/MariaDB, which lack `UPDATE …
 * RETURNING`: 2 when the row has a context or the claim lists no `allowedStates`; see
 * `FsmStateSql.claim`), plus 1 diagnostic SELECT when the claim is refused (plus 1 INSERT for
 * `createWith`); `commit`, `release`, `load`, `save`, `loadMany`, `loadStates`: 1. With
 * history on, `commit` and `create` stay 1 statement on PostgreSQL (data-modifying CTE) and
 * become a transaction elsewhere: 4 statements on SQLite (BEGIN, UPDATE/INSERT, history
 * INSERT, COMMIT), 6 on MySQL/MariaDB (the same, and the SET of the server-side limits before
 * and after; see below). Transactional mode: `beginTransaction` 2 (1 on SQLite), `lock` 1,
 * `commit` the state write (2 with history, except on PostgreSQL) and COMMIT, plus 1 on
 * MySQL/MariaDB. Lease expiry compares with this process's clock
 * (`Date.now()`), so processes sharing a database need synchronised clocks.
 *
 * Every operation and every transaction is bounded by `timeoutMs` (default 5 s; see the option):
 * the operation fails with an error naming it and the limit (the gate answers STATE_UNAVAILABLE,
 * and a call whose commit timed out is never acknowledged), and its connection is closed
 * rather than returned to the pool. A transaction (transactional mode, or the history write on
 * MySQL/MariaDB and SQLite) also sets server-side limits, so the server rolls it back and frees
 * its row locks when the client is cut off: PostgreSQL `SET LOCAL statement_timeout` and
 * `idle_in_transaction_session_timeout` (1 more round trip after BEGIN); MariaDB the session's
 * `idle_transaction_timeout` and `max_statement_time`, MySQL (which has no limit on idle
 * transactions) `wait_timeout` and `max_execution_time`, saved and set before START TRANSACTION
 * and restored after COMMIT or ROLLBACK (1 more round trip each; on MySQL, the first
 * transaction of a DataSource also tries MariaDB's SET once). A statement abandoned at the deadline may still
 * complete on the server: a lease it took expires after `leaseMs`.
 *
 * On better-sqlite3, TypeORM runs every query of a DataSource on one shared connection: the
 * store serialises all its operations per DataSource, reads included, so that no read sees the
 * uncommitted writes of a transactional call. The price: while a transactional call's handler
 * runs, the store's other reads and writes (tool menus included) wait for it, at most
 * `timeoutMs`, then fail. Queries run synchronously and cannot be interrupted, so on SQLite
 * `timeoutMs` bounds the wait for the connection, and a transaction open longer than that is
 * rolled back at its commit. When COMMIT or ROLLBACK fails (SQLITE_FULL, a read-only file), the
 * store makes sure no transaction stays open on the connection, so no later write is
 * acknowledged without being committed. Queries that the application runs on the same
 * DataSource outside gated calls share that one connection.
 *
 * @example
 * TypeOrmModule.forRoot({ ..., migrations: [CreateMcpFsmState1764460800000, AddMcpFsmContext1764547200000], migrationsRun: true });
 * McpModule.forRootAsync({
 *   inject: [DataSource],
 *   useFactory: (dataSource: DataSource) => ({ name: 'billing', version: '1.0.0',
 *     store: new TypeOrmWorkflowStateStore(dataSource, { history: true }) }),
 * });
 */
export class TypeOrmWorkflowStateStore implements TransactionalWorkflowStateStore, OnApplicationBootstrap {
  private readonly queries: BoundedQueries;
  private readonly sql: FsmStateSql;
  private readonly keepHistory: boolean;
  private readonly limits: TransactionLimits;

  constructor(
    private readonly dataSource: DataSource,
    options: TypeOrmWorkflowStateStoreOptions = {},
  ) {
    const queries = new BoundedQueries(dataSource, TypeOrmWorkflowStateStore.name, options.timeoutMs);
    this.queries = queries;
    this.sql = new FsmStateSql(
      queries.dialect,
      queries.table(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE),
      queries.table(options.historyTableName ?? DEFAULT_WORKFLOW_TRANSITION_TABLE),
    );
    this.keepHistory = options.history ?? false;
    this.limits = new TransactionLimits(queries.dialect, queries.timeoutMs);
  }

  /**
   * Checks, when the application starts, that the state table has every column this version
   * uses (a forgotten migration fails the bootstrap with the migrations to run, instead of
   * every gated call failing closed). Skipped while the DataSource is not initialized yet.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.session('the schema check', (runner) => this.sql.assertSchema(runner));
    }
  }

  /** @inheritdoc */
  load(handle: string): Promise<WorkflowSnapshot | undefined> {
    return this.session('load', (runner) => this.sql.load(runner, handle));
  }

  /** Upserts the snapshot (one statement); a lease on the instance is kept. */
  save(handle: string, snapshot: WorkflowSnapshot): Promise<void> {
    return this.session('save', (runner) => this.sql.save(runner, handle, snapshot));
  }

  /** @inheritdoc */
  async create(handle: string, snapshot: WorkflowSnapshot, record?: WorkflowTransitionRecord): Promise<void> {
    const kept = this.kept(record);
    const created = await this.session(
      'create',
      (runner) => this.sql.insert(runner, handle, snapshot, { record: kept }),
      kept !== undefined && this.sql.needsTransactionForRecord(),
    );
    if (!created) throw new Error(storeHandleExists(handle));
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
      const snapshot = await this.sql.claim(runner, request, lease, now);
      if (snapshot) return { status: 'claimed', snapshot };
      const row = await this.sql.inspect(runner, request.handle);
      if (row) return notTaken(row, request, now);
      if (!request.createWith) return { status: 'unknown' };
      if (await this.sql.insert(runner, request.handle, request.createWith, { lease })) {
        return { status: 'claimed', snapshot: storedSnapshot(request.createWith) };
      }
      const raced = await this.sql.inspect(runner, request.handle);
      return raced ? notTaken(raced, request, now) : { status: 'unknown' };
    });
  }

  /** @inheritdoc */
  commit(handle: string, token: string, commit: WorkflowCommit): Promise<boolean> {
    const record = this.kept(commit.record);
    return this.session(
      'commit',
      (runner) => this.sql.update(runner, handle, token, commit.snapshot, record),
      record !== undefined && this.sql.needsTransactionForRecord(),
    );
  }

  /** @inheritdoc */
  delete(handles: readonly string[]): Promise<void> {
    return this.session('delete', (runner) => this.sql.delete(runner, handles));
  }

  /** @inheritdoc */
  sweep(request: WorkflowSweepRequest): Promise<number> {
    return this.session('sweep', (runner) => this.sql.sweep(runner, request, Date.now()));
  }

  /** @inheritdoc */
  renew(handle: string, token: string, leaseMs: number): Promise<boolean> {
    return this.session('renew', (runner) => this.sql.renew(runner, handle, token, Date.now() + leaseMs));
  }

  /** @inheritdoc */
  release(handle: string, token: string): Promise<void> {
    return this.session('release', (runner) => this.sql.release(runner, handle, token));
  }

  /** @inheritdoc */
  loadMany(handles: readonly string[]): Promise<Map<string, WorkflowSnapshot>> {
    return this.session('loadMany', (runner) => this.sql.loadMany(runner, handles));
  }

  /** @inheritdoc */
  loadStates(handles: readonly string[]): Promise<Map<string, string>> {
    return this.session('loadStates', (runner) => this.sql.loadStates(runner, handles));
  }

  /** @inheritdoc */
  async history(handle: string): Promise<WorkflowTransitionRecord[]> {
    return this.keepHistory ? this.session('history', (runner) => this.sql.records(runner, handle)) : [];
  }

  /**
   * Opens a transaction on a QueryRunner of its own, with the server-side limits (see the
   * class). Waiting for the connection (on better-sqlite3: for the store's other work to end,
   * then it holds the shared connection until commit or rollback) and BEGIN take at most
   * `timeoutMs`; the transaction then has `timeoutMs` until its COMMIT.
   */
  async beginTransaction(): Promise<WorkflowTransaction> {
    const { queries } = this;
    const opening = queries.deadline('beginTransaction');
    let endTurn = () => {};
    let runner: QueryRunner | undefined;
    try {
      endTurn = await queries.turn(opening);
      runner = this.dataSource.createQueryRunner();
      await queries.bounded(opening, this.limits.begin(runner));
    } catch (error) {
      if (runner) queries.abandon(runner, opening);
      endTurn();
      throw error;
    } finally {
      opening.clear();
    }
    return new TypeOrmFsmTransaction(runner, {
      sql: this.sql,
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

/** @deprecated Use {@link TypeOrmWorkflowStateStore}; the old name goes in 0.4. */
export const TypeOrmFsmStateStore = TypeOrmWorkflowStateStore;
/** @deprecated Use {@link TypeOrmWorkflowStateStore}; the old name goes in 0.4. */
export type TypeOrmFsmStateStore = TypeOrmWorkflowStateStore;
