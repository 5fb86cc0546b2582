import type { QueryRunner } from 'typeorm';
import { storeReceiptKept, storeReceiptsNotReady, storeReceiptUnreadable } from '../stores.messages.js';
import type { WorkflowCallAnswer, WorkflowCallReceipt } from '../workflow-call-receipt.interface.js';
import { insertedOnce } from './mysql-errno.js';
import { assertColumns, type FsmSqlDialect, quoteTableName, runSql, type SqlResult, type SqlStatement } from './typeorm-sql.js';

/** The columns of a receipt row, in the order an INSERT gives their values. */
const RECEIPT_COLUMNS = 'requester, idempotency_key, tool, fingerprint, instance_key, answer, created_at, expires_at';

/** One receipt row, as the drivers return it (pg and mysql2 return BIGINT as a string). */
interface ReceiptRow {
  requester: string;
  idempotency_key: string;
  tool: string;
  fingerprint: string;
  instance_key: string;
  answer: string;
  created_at: string | number;
  expires_at: string | number;
}

/**
 * The SQL of the receipt table of keyed calls (`CreateMcpFsmReceipt1766966400000`) in one
 * dialect. {@link FsmReceiptSql.record} runs in the transaction that writes the state: its
 * primary key (requester, idempotency key) makes a second receipt fail, and with it the whole
 * commit. Each method is one statement.
 */
export class FsmReceiptSql {
  private readonly table: string;

  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
  ) {
    this.table = quoteTableName(dialect, tableName);
  }

  /** Throws, naming the migration to run, when the receipt table lacks a column. */
  async assertSchema(runner: QueryRunner): Promise<void> {
    await assertColumns(runner, this.dialect, { columns: RECEIPT_COLUMNS, from: this.table }, (error) =>
      storeReceiptsNotReady(this.table, error),
    );
  }

  /**
   * Inserts the receipt; throws when one of its requester and key is kept, so the caller's
   * transaction rolls back. An expired receipt the sweep has not deleted yet is replaced: in the
   * same statement on PostgreSQL and SQLite, by a DELETE and a second INSERT on MySQL/MariaDB
   * (which refuse the duplicate key without ending the transaction).
   */
  async record(runner: QueryRunner, receipt: WorkflowCallReceipt): Promise<void> {
    const values = [
      receipt.requester,
      receipt.idempotencyKey,
      receipt.tool,
      receipt.fingerprint,
      receipt.instanceKey,
      JSON.stringify(receipt.answer),
      receipt.createdAt,
      receipt.expiresAt,
    ];
    const insert = `INSERT INTO ${this.table} AS kept (${RECEIPT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`;
    if (this.dialect !== 'mysql') {
      const replace = RECEIPT_COLUMNS.split(', ')
        .slice(2)
        .map((column) => `${column} = excluded.${column}`)
        .join(', ');
      const upsert = `${insert} ON CONFLICT (requester, idempotency_key) DO UPDATE SET ${replace} WHERE kept.expires_at <= ?`;
      if (await insertedOnce(() => this.run(runner, { sql: upsert, params: [...values, receipt.createdAt] }))) return;
      throw new Error(storeReceiptKept(receipt.idempotencyKey));
    }
    const plain = { sql: insert.replace(' AS kept', ''), params: values };
    if (await insertedOnce(() => this.run(runner, plain))) return;
    const expired = await this.run(runner, {
      sql: `DELETE FROM ${this.table} WHERE requester = ? AND idempotency_key = ? AND expires_at <= ?`,
      params: [receipt.requester, receipt.idempotencyKey, receipt.createdAt],
    });
    if (expired.affected === 1 && (await insertedOnce(() => this.run(runner, plain)))) return;
    throw new Error(storeReceiptKept(receipt.idempotencyKey));
  }

  /** The receipt of `requester`'s key when it has not expired at `now` (one primary-key lookup). */
  async find(runner: QueryRunner, requester: string, idempotencyKey: string, now: number): Promise<WorkflowCallReceipt | undefined> {
    const { records } = await this.run<ReceiptRow>(runner, {
      sql: `SELECT ${RECEIPT_COLUMNS} FROM ${this.table} WHERE requester = ? AND idempotency_key = ? AND expires_at > ?`,
      params: [requester, idempotencyKey, now],
    });
    return records[0] && toReceipt(records[0]);
  }

  /**
   * Deletes at most `limit` receipts expired at `now` (an index range scan on `expires_at`).
   * PostgreSQL skips rows another sweep holds; MySQL/MariaDB take `DELETE … ORDER BY … LIMIT`.
   */
  async sweep(runner: QueryRunner, now: number, limit: number): Promise<number> {
    const candidates = `SELECT requester, idempotency_key FROM ${this.table} WHERE expires_at <= ? LIMIT ?`;
    const sql = {
      postgres: `DELETE FROM ${this.table} WHERE (requester, idempotency_key) IN (${candidates} FOR UPDATE SKIP LOCKED)`,
      sqlite: `DELETE FROM ${this.table} WHERE (requester, idempotency_key) IN (${candidates})`,
      mysql: `DELETE FROM ${this.table} WHERE expires_at <= ? ORDER BY expires_at, requester, idempotency_key LIMIT ?`,
    }[this.dialect];
    return (await this.run(runner, { sql, params: [now, limit] })).affected;
  }

  private run<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlResult<T>> {
    return runSql<T>(runner, this.dialect, statement);
  }
}

/** A row as a receipt; an answer that cannot be parsed is an error naming the key. */
function toReceipt(row: ReceiptRow): WorkflowCallReceipt {
  let answer: WorkflowCallAnswer;
  try {
    answer = JSON.parse(row.answer) as WorkflowCallAnswer;
  } catch (error) {
    throw new Error(storeReceiptUnreadable(row.idempotency_key, error), { cause: error });
  }
  return {
    requester: row.requester,
    idempotencyKey: row.idempotency_key,
    tool: row.tool,
    fingerprint: row.fingerprint,
    instanceKey: row.instance_key,
    answer,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}
