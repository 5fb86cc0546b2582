import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import {
  MCP_TASK_ACTIVE_STATUSES,
  type McpTaskChange,
  type McpTaskCursor,
  type McpTaskRecord,
  type McpTaskStatus,
} from '../mcp-task-store.interface.js';
import { taskRecordUnreadable, taskRequesterLockTimedOut, taskStoreSchemaNotReady } from './task-store.messages.js';
import {
  assertColumns,
  exactlyEquals,
  type FsmSqlDialect,
  quoteTableName,
  runSql,
  type SqlResult,
  type SqlStatement,
} from './typeorm-sql.js';

/** One task row, as the drivers return it (pg and mysql2 return BIGINT as a string). */
interface TaskRow {
  task_id: string;
  requester: string;
  session_id: string | null;
  server_id: string;
  request: string;
  status: string;
  status_message: string | null;
  result: string | null;
  error: string | null;
  input: string | null;
  ttl_ms: string | number;
  poll_interval_ms: string | number;
  created_at: string | number;
  updated_at: string | number;
  expires_at: string | number;
  lease_until: string | number | null;
}

const COLUMNS =
  'task_id, requester, session_id, server_id, request, status, status_message, result, error, input, ttl_ms, poll_interval_ms, created_at, updated_at, expires_at, lease_until';
/** The SQL types of {@link COLUMNS}, in order (PostgreSQL types the values of an INSERT … SELECT by them). */
const COLUMN_TYPES = [
  ...['varchar', 'varchar', 'varchar', 'varchar', 'text', 'varchar', 'text', 'text', 'text', 'text'],
  ...['bigint', 'bigint', 'bigint', 'bigint', 'bigint', 'bigint'],
] as const;

/**
 * The SQL of the task table in one dialect. Every method is one statement (one round trip)
 * unless its JSDoc says otherwise; the caller chooses the `QueryRunner`.
 */
export class McpTaskSql {
  private readonly tasks: string;

  /** `tableName` as `BoundedQueries.table` returns it. */
  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
  ) {
    this.tasks = quoteTableName(dialect, tableName);
  }

  /** Throws, naming the migration to run, when the table is missing or lacks a column this version uses. */
  assertSchema(runner: QueryRunner): Promise<void> {
    return assertColumns(runner, this.dialect, { columns: COLUMNS, from: this.tasks }, (error) =>
      taskStoreSchemaNotReady(this.tasks, error),
    );
  }

  /** Inserts a task row. */
  async insert(runner: QueryRunner, record: McpTaskRecord): Promise<void> {
    await this.run(runner, {
      sql: `INSERT INTO ${this.tasks} (${COLUMNS}) VALUES (${COLUMN_TYPES.map(() => '?').join(', ')})`,
      params: rowValues(record),
    });
  }

  /**
   * Inserts a task row unless its requester holds `maxActive` tasks that are active and not
   * expired at `record.createdAt`: one INSERT … SELECT whose count and insert no other creation
   * for the requester can come between. SQLite: the statement itself (a write statement holds the
   * database's write lock from its start). PostgreSQL: in the caller's transaction, after a
   * transaction-level advisory lock on the table and requester. MySQL/MariaDB: between
   * `GET_LOCK` and `RELEASE_LOCK` of a lock named for the table and requester, waiting at most
   * `lockWaitSeconds`. Answers whether it inserted.
   */
  async insertWithin(runner: QueryRunner, record: McpTaskRecord, maxActive: number, lockWaitSeconds: number): Promise<boolean> {
    if (this.dialect === 'postgres') {
      await this.run(runner, { sql: 'SELECT pg_advisory_xact_lock(hashtext(?), hashtext(?))', params: [this.tasks, record.requester] });
      return this.insertIfBelow(runner, record, maxActive);
    }
    if (this.dialect === 'sqlite') return this.insertIfBelow(runner, record, maxActive);
    const lock = `mcp_task:${createHash('sha1').update(`${this.tasks}\n${record.requester}`).digest('hex')}`;
    const { records } = await this.run<{ taken: number | string | null }>(runner, {
      sql: 'SELECT GET_LOCK(?, ?) AS taken',
      params: [lock, lockWaitSeconds],
    });
    if (Number(records[0]?.taken) !== 1) throw new Error(taskRequesterLockTimedOut(this.tasks, lockWaitSeconds));
    try {
      // READ COMMITTED: the count reads the committed rows without locking them.
      await runner.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      return await this.insertIfBelow(runner, record, maxActive);
    } finally {
      await this.run(runner, { sql: 'SELECT RELEASE_LOCK(?)', params: [lock] });
    }
  }

  private async insertIfBelow(runner: QueryRunner, record: McpTaskRecord, maxActive: number): Promise<boolean> {
    const value = this.dialect === 'postgres' ? (type: string) => `?::${type}` : () => '?';
    const requester = exactlyEquals(this.dialect, 'requester', record.requester);
    const { affected } = await this.run(runner, {
      sql:
        `INSERT INTO ${this.tasks} (${COLUMNS}) SELECT ${COLUMN_TYPES.map(value).join(', ')}${this.dialect === 'mysql' ? ' FROM DUAL' : ''} ` +
        `WHERE (SELECT COUNT(*) FROM ${this.tasks} WHERE ${requester.sql} AND status IN (?, ?) AND expires_at > ?) < ?`,
      params: [...rowValues(record), ...requester.params, ...MCP_TASK_ACTIVE_STATUSES, record.createdAt, maxActive],
    });
    return affected === 1;
  }

  /** The task with this id. */
  async find(runner: QueryRunner, taskId: string): Promise<McpTaskRecord | undefined> {
    const { records } = await this.run<TaskRow>(runner, {
      sql: `SELECT ${COLUMNS} FROM ${this.tasks} WHERE task_id = ?`,
      params: [taskId],
    });
    return records[0] && toRecord(records[0]);
  }

  /**
   * Applies `change` when the task is in one of `from` and not expired at `now`: one guarded
   * UPDATE (the row lock makes a concurrent second one find the new status and match nothing),
   * with `RETURNING` on PostgreSQL and SQLite; MySQL/MariaDB read the row back after it (two
   * round trips).
   */
  async update(
    runner: QueryRunner,
    taskId: string,
    change: McpTaskChange,
    from: readonly McpTaskStatus[],
    now: number,
  ): Promise<McpTaskRecord | undefined> {
    const sets = ['status = ?', 'updated_at = ?'];
    const params: unknown[] = [change.status, now];
    const set = (column: string, value: unknown) => {
      sets.push(`${column} = ?`);
      params.push(value);
    };
    if (change.statusMessage !== undefined) set('status_message', change.statusMessage);
    if (change.result !== undefined) set('result', JSON.stringify(change.result));
    if (change.error !== undefined) set('error', JSON.stringify(change.error));
    if (change.input !== undefined) set('input', json(change.input ?? undefined));
    if (change.leaseUntil !== undefined) set('lease_until', change.leaseUntil);
    const update =
      `UPDATE ${this.tasks} SET ${sets.join(', ')} WHERE task_id = ? AND status IN (${from.map(() => '?').join(', ')}) ` +
      'AND expires_at > ?';
    const statement = { sql: update, params: [...params, taskId, ...from, now] };
    if (this.dialect === 'mysql') {
      const { affected } = await this.run(runner, statement);
      return affected === 1 ? this.find(runner, taskId) : undefined;
    }
    const { records } = await this.run<TaskRow>(runner, { ...statement, sql: `${update} RETURNING ${COLUMNS}` });
    return records[0] && toRecord(records[0]);
  }

  /** At most `limit` tasks of `requester` not expired at `now`, oldest first, after `after` (an index range scan). */
  async list(runner: QueryRunner, requester: string, now: number, limit: number, after?: McpTaskCursor): Promise<McpTaskRecord[]> {
    const page = after ? ' AND (created_at > ? OR (created_at = ? AND task_id > ?))' : '';
    const whose = exactlyEquals(this.dialect, 'requester', requester);
    const { records } = await this.run<TaskRow>(runner, {
      sql: `SELECT ${COLUMNS} FROM ${this.tasks} WHERE ${whose.sql} AND expires_at > ?${page} ORDER BY created_at, task_id LIMIT ?`,
      params: [...whose.params, now, ...(after ? [after.createdAt, after.createdAt, after.taskId] : []), limit],
    });
    return records.map(toRecord);
  }

  /** At most `limit` working tasks, not expired at `now`, whose lease ran out (an index range scan on `(status, lease_until)`). */
  async orphans(runner: QueryRunner, now: number, limit: number): Promise<McpTaskRecord[]> {
    const { records } = await this.run<TaskRow>(runner, {
      sql: `SELECT ${COLUMNS} FROM ${this.tasks} WHERE status = ? AND lease_until < ? AND expires_at > ? ORDER BY lease_until, task_id LIMIT ?`,
      params: ['working', now, now, limit],
    });
    return records.map(toRecord);
  }

  /**
   * Deletes at most `limit` tasks expired at `now`. PostgreSQL skips rows another sweep holds
   * (`FOR UPDATE SKIP LOCKED`); MySQL/MariaDB take `DELETE … ORDER BY … LIMIT`, ordered by a
   * unique key so the statement is deterministic for replication.
   */
  async sweep(runner: QueryRunner, now: number, limit: number): Promise<number> {
    const candidates = `SELECT task_id FROM ${this.tasks} WHERE expires_at <= ? LIMIT ?`;
    const sql = {
      postgres: `DELETE FROM ${this.tasks} WHERE task_id IN (${candidates} FOR UPDATE SKIP LOCKED)`,
      sqlite: `DELETE FROM ${this.tasks} WHERE task_id IN (${candidates})`,
      mysql: `DELETE FROM ${this.tasks} WHERE expires_at <= ? ORDER BY expires_at, task_id LIMIT ?`,
    }[this.dialect];
    return (await this.run(runner, { sql, params: [now, limit] })).affected;
  }

  private run<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlResult<T>> {
    return runSql<T>(runner, this.dialect, statement);
  }
}

const json = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));

/** The values of a task row's columns ({@link COLUMNS}). */
function rowValues(record: McpTaskRecord): unknown[] {
  return [
    record.taskId,
    record.requester,
    record.sessionId ?? null,
    record.serverId,
    JSON.stringify(record.request),
    record.status,
    record.statusMessage ?? null,
    json(record.result),
    json(record.error),
    json(record.input),
    record.ttlMs,
    record.pollIntervalMs,
    record.createdAt,
    record.updatedAt,
    record.expiresAt,
    record.leaseUntil ?? null,
  ];
}

/** A row as a record; a JSON column that cannot be parsed is an error naming the task and the column. */
function toRecord(row: TaskRow): McpTaskRecord {
  const parse = <T>(column: keyof TaskRow): T | undefined => {
    const value = row[column];
    if (value === null) return undefined;
    try {
      return JSON.parse(String(value)) as T;
    } catch (error) {
      throw new Error(taskRecordUnreadable(row.task_id, column, error), { cause: error });
    }
  };
  const record: McpTaskRecord = {
    taskId: row.task_id,
    requester: row.requester,
    serverId: row.server_id,
    request: parse<McpTaskRecord['request']>('request')!,
    status: row.status as McpTaskStatus,
    ttlMs: Number(row.ttl_ms),
    pollIntervalMs: Number(row.poll_interval_ms),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    expiresAt: Number(row.expires_at),
  };
  if (row.session_id !== null) record.sessionId = row.session_id;
  if (row.status_message !== null) record.statusMessage = row.status_message;
  if (row.lease_until !== null) record.leaseUntil = Number(row.lease_until);
  const result = parse<McpTaskRecord['result']>('result');
  if (result !== undefined) record.result = result;
  const error = parse<McpTaskRecord['error']>('error');
  if (error !== undefined) record.error = error;
  const input = parse<McpTaskRecord['input']>('input');
  if (input !== undefined) record.input = input;
  return record;
}
