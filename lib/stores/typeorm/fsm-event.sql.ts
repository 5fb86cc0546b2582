import type { QueryRunner } from 'typeorm';
import { storeEventApplied, storeEventsNotReady } from '../stores.messages.js';
import type { WorkflowEventReceipt } from '../workflow-event.interface.js';
import { insertedOnce } from './mysql-errno.js';
import { assertColumns, type FsmSqlDialect, quoteTableName, runSql, type SqlResult, type SqlStatement } from './typeorm-sql.js';

/** The columns of a receipt row, in the order an INSERT gives their values. */
const EVENT_COLUMNS = 'handle, idempotency_key, machine, event, actor, applied_at';

/**
 * The SQL of the receipt table of outside events (`CreateMcpFsmEvent1766620800000`) in one
 * dialect. {@link FsmEventSql.record} runs in the transaction that writes the state: its primary
 * key (handle, idempotency key) makes a second receipt fail, and with it the whole commit.
 */
export class FsmEventSql {
  private readonly table: string;

  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
  ) {
    this.table = quoteTableName(dialect, tableName);
  }

  /** Throws, naming the migration to run, when the event-receipt table lacks a column. */
  async assertSchema(runner: QueryRunner): Promise<void> {
    await assertColumns(runner, this.dialect, { columns: EVENT_COLUMNS, from: this.table }, (error) =>
      storeEventsNotReady(this.table, error),
    );
  }

  /**
   * Inserts the receipt of instance `handle` (one statement); throws when it is already kept, so
   * the caller's transaction rolls back. PostgreSQL and SQLite skip the conflicting row (a failed
   * statement would end a PostgreSQL transaction, and the caller rolls back anyway); MySQL/MariaDB
   * reports the duplicate key.
   */
  async record(runner: QueryRunner, handle: string, receipt: WorkflowEventReceipt, atMs: number): Promise<void> {
    const insert: SqlStatement = {
      sql: `INSERT INTO ${this.table} (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)${
        this.dialect === 'mysql' ? '' : ' ON CONFLICT (handle, idempotency_key) DO NOTHING'
      }`,
      params: [handle, receipt.idempotencyKey, receipt.machine, receipt.event, receipt.actor, atMs],
    };
    const inserted = await insertedOnce(() => this.run(runner, insert));
    if (!inserted) throw new Error(storeEventApplied(handle, receipt.idempotencyKey));
  }

  /** Whether the receipt of `idempotencyKey` is kept for instance `handle` (one primary-key lookup). */
  async has(runner: QueryRunner, handle: string, idempotencyKey: string): Promise<boolean> {
    const { records } = await this.run(runner, {
      sql: `SELECT 1 AS found FROM ${this.table} WHERE handle = ? AND idempotency_key = ?`,
      params: [handle, idempotencyKey],
    });
    return records.length > 0;
  }

  private run<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlResult<T>> {
    return runSql<T>(runner, this.dialect, statement);
  }
}
