import type { OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import type { FsmClaimRequest, FsmClaimResult, FsmCommit, FsmSweepRequest } from '../atomic-fsm-state-store.interface.js';
import type { FsmSnapshot } from '../fsm-state-store.interface.js';
import type { FsmTransitionRecord } from '../fsm-transition-record.interface.js';
import { storeHandleExists } from '../stores.messages.js';
import type { FsmTransaction, TransactionalFsmStateStore } from '../transactional-fsm-state-store.interface.js';
import { FsmStateSql, fsmSqlDialect, notTaken, storedSnapshot } from './fsm-state.sql.js';
import { type SerialQueue, sqliteWriteQueue } from './sqlite-write.queue.js';
import {
  DEFAULT_FSM_STATE_TABLE,
  DEFAULT_FSM_TRANSITION_TABLE,
  type TypeOrmFsmStateStoreOptions,
} from './typeorm-fsm-state-store-options.interface.js';
import { TypeOrmFsmTransaction } from './typeorm-fsm-state.transaction.js';

/**
 * Workflow state in the application's own database, through its TypeORM `DataSource`
 * (plain, or injected from `@nestjs/typeorm`): PostgreSQL, MySQL/MariaDB or better-sqlite3.
 * The tables come from the shipped migrations, in this order: `CreateMcpFsmState1764460800000`
 * (or `createFsmStateMigration(options)`), then `AddMcpFsmContext1764547200000` (or
 * `createFsmContextMigration(options)`, which adds the `context` column of 0.2); `synchronize`
 * is not needed. Contexts are stored as JSON text. The store never
 * initializes or destroys the DataSource, and database errors are thrown, never swallowed.
 *
 * Round trips per operation (history off): `claim` 1 (MySQL/MariaDB, which lack `UPDATE …
 * RETURNING`: 2 when the row has a context or the claim lists no `allowedStates`; see
 * `FsmStateSql.claim`), plus 1 diagnostic SELECT when the claim is refused (plus 1 INSERT for
 * `createWith`); `commit`, `release`, `load`, `save`, `loadMany`, `loadStates`: 1. With
 * history on, `commit` and `create` stay 1 statement on PostgreSQL (data-modifying CTE) and
 * become a 4-statement transaction elsewhere (BEGIN, UPDATE/INSERT, history INSERT, COMMIT). Lease expiry compares with this process's clock
 * (`Date.now()`), so processes sharing a database need synchronised clocks.
 *
 * On better-sqlite3, TypeORM runs every query of a DataSource on one shared connection: the
 * store serialises its writes and transactions per DataSource (a transactional call holds
 * the database for the duration of its handler; other writes wait), and reads through the
 * same DataSource during an open transaction see its uncommitted writes.
 *
 * @example
 * TypeOrmModule.forRoot({ ..., migrations: [CreateMcpFsmState1764460800000, AddMcpFsmContext1764547200000], migrationsRun: true });
 * McpModule.forRootAsync({
 *   inject: [DataSource],
 *   useFactory: (dataSource: DataSource) => ({ name: 'billing', version: '1.0.0',
 *     store: new TypeOrmFsmStateStore(dataSource, { history: true }) }),
 * });
 */
export class TypeOrmFsmStateStore implements TransactionalFsmStateStore, OnApplicationBootstrap {
  private readonly sql: FsmStateSql;
  private readonly keepHistory: boolean;
  private readonly writeQueue?: SerialQueue;

  constructor(
    private readonly dataSource: DataSource,
    options: TypeOrmFsmStateStoreOptions = {},
  ) {
    const dialect = fsmSqlDialect(dataSource.options.type);
    // The migrations create unqualified tables in the DataSource's `schema` (PostgreSQL): look there too.
    const schema = dialect === 'postgres' ? (dataSource.options as { schema?: string }).schema : undefined;
    const inSchema = (table: string) => (schema && !table.includes('.') ? `${schema}.${table}` : table);
    this.sql = new FsmStateSql(
      dialect,
      inSchema(options.tableName ?? DEFAULT_FSM_STATE_TABLE),
      inSchema(options.historyTableName ?? DEFAULT_FSM_TRANSITION_TABLE),
    );
    this.keepHistory = options.history ?? false;
    if (dialect === 'sqlite') this.writeQueue = sqliteWriteQueue(dataSource);
  }

  /**
   * Checks, when the application starts, that the state table has every column this version
   * uses (a forgotten migration fails the bootstrap with the migrations to run, instead of
   * every gated call failing closed). Skipped while the DataSource is not initialized yet.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.read((runner) => this.sql.assertSchema(runner));
    }
  }

  /** @inheritdoc */
  load(handle: string): Promise<FsmSnapshot | undefined> {
    return this.read((runner) => this.sql.load(runner, handle));
  }

  /** Upserts the snapshot (one statement); a lease on the instance is kept. */
  save(handle: string, snapshot: FsmSnapshot): Promise<void> {
    return this.write((runner) => this.sql.save(runner, handle, snapshot));
  }

  /** @inheritdoc */
  async create(handle: string, snapshot: FsmSnapshot, record?: FsmTransitionRecord): Promise<void> {
    const kept = this.kept(record);
    const created = await this.write(
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
  claim(request: FsmClaimRequest): Promise<FsmClaimResult> {
    return this.write(async (runner) => {
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
  commit(handle: string, token: string, commit: FsmCommit): Promise<boolean> {
    const record = this.kept(commit.record);
    return this.write(
      (runner) => this.sql.update(runner, handle, token, commit.snapshot, record),
      record !== undefined && this.sql.needsTransactionForRecord(),
    );
  }

  /** @inheritdoc */
  delete(handles: readonly string[]): Promise<void> {
    return this.write((runner) => this.sql.delete(runner, handles));
  }

  /** @inheritdoc */
  sweep(request: FsmSweepRequest): Promise<number> {
    return this.write((runner) => this.sql.sweep(runner, request, Date.now()));
  }

  /** @inheritdoc */
  renew(handle: string, token: string, leaseMs: number): Promise<boolean> {
    return this.write((runner) => this.sql.renew(runner, handle, token, Date.now() + leaseMs));
  }

  /** @inheritdoc */
  release(handle: string, token: string): Promise<void> {
    return this.write((runner) => this.sql.release(runner, handle, token));
  }

  /** @inheritdoc */
  loadMany(handles: readonly string[]): Promise<Map<string, FsmSnapshot>> {
    return this.read((runner) => this.sql.loadMany(runner, handles));
  }

  /** @inheritdoc */
  loadStates(handles: readonly string[]): Promise<Map<string, string>> {
    return this.read((runner) => this.sql.loadStates(runner, handles));
  }

  /** @inheritdoc */
  async history(handle: string): Promise<FsmTransitionRecord[]> {
    return this.keepHistory ? this.read((runner) => this.sql.records(runner, handle)) : [];
  }

  /**
   * Opens a transaction on a QueryRunner of its own (on better-sqlite3: waits for the
   * store's other writes, then holds the shared connection until commit or rollback).
   */
  async beginTransaction(): Promise<FsmTransaction> {
    const release = this.writeQueue ? await this.writeQueue.acquire() : () => undefined;
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
    } catch (error) {
      await runner.release().finally(release);
      throw error;
    }
    return new TypeOrmFsmTransaction(runner, this.sql, this.keepHistory, release);
  }

  private kept(record: FsmTransitionRecord | undefined): FsmTransitionRecord | undefined {
    return this.keepHistory ? record : undefined;
  }

  private async read<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await work(runner);
    } finally {
      await runner.release();
    }
  }

  private write<T>(work: (runner: QueryRunner) => Promise<T>, transaction = false): Promise<T> {
    const run = () =>
      this.read(async (runner) => {
        if (!transaction) return work(runner);
        await runner.startTransaction();
        try {
          const result = await work(runner);
          await runner.commitTransaction();
          return result;
        } catch (error) {
          // The original error says what went wrong; a failed rollback (dead connection) would hide it.
          await runner.rollbackTransaction().catch(() => undefined);
          throw error;
        }
      });
    return this.writeQueue ? this.writeQueue.run(run) : run();
  }
}
