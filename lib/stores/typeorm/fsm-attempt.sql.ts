import type { QueryRunner } from 'typeorm';
import { storeAttemptsNotReady } from '../stores.messages.js';
import type { WorkflowAccessor } from '../workflow-access.js';
import type { WorkflowAttemptRecord } from '../workflow-attempt.interface.js';
import { columnIn, listParameter } from './sql-lists.js';
import { assertColumns, exactlyEquals, type FsmSqlDialect, quoteTableName, runSql } from './typeorm-sql.js';

interface AttemptRow {
  machine: string;
  handle: string;
  tool: string;
  code: string;
  principal: string | null;
  at: string | number;
  message: string | null;
  args: string | null;
}

/** The columns of an attempt row, in the order `record` gives their values. */
const ATTEMPT_COLUMNS = 'machine, handle, tool, code, principal, at, message, args';

/**
 * The SQL of the attempt table (refused and declined calls) in one dialect. An attempt is
 * inserted only for an instance that exists and that the caller may see (one INSERT … SELECT
 * from the state table that never locks the state row), and the instance's rows beyond the
 * bound are deleted right after, in a statement of their own.
 */
export class FsmAttemptSql {
  private readonly state: string;
  private readonly attempts: string;

  /** The table names as `BoundedQueries.table` returns them. */
  constructor(
    readonly dialect: FsmSqlDialect,
    stateTableName: string,
    attemptTableName: string,
  ) {
    this.state = quoteTableName(dialect, stateTableName);
    this.attempts = quoteTableName(dialect, attemptTableName);
  }

  /** Throws, naming the migration to run, when the attempt table is missing. */
  async assertSchema(runner: QueryRunner): Promise<void> {
    await assertColumns(runner, this.dialect, { columns: ATTEMPT_COLUMNS, from: this.attempts }, (error) =>
      storeAttemptsNotReady(this.attempts, error),
    );
  }

  /**
   * Inserts the attempt when its instance exists and is open to `caller` (`isOpenTo`: no owner,
   * `caller.owner` as its owner, or `caller.team` as its team): one INSERT … SELECT from the
   * state table, on its own (autocommitted). The read of the state row never locks it: on
   * MySQL/MariaDB the statement runs at READ COMMITTED, where InnoDB reads the source of an
   * INSERT … SELECT as a consistent read (at REPEATABLE READ it takes a shared lock on the
   * row, and a transactional claim's `SKIP LOCKED` would answer BUSY); PostgreSQL and SQLite
   * never lock what a SELECT reads. Answers whether it inserted.
   */
  async insert(runner: QueryRunner, attempt: WorkflowAttemptRecord, caller: WorkflowAccessor): Promise<boolean> {
    const cast = this.dialect === 'postgres' ? (type: string) => `?::${type}` : () => '?';
    const handle = exactlyEquals(this.dialect, 'handle', attempt.key);
    const open = [exactlyEquals(this.dialect, 'owner', caller.owner ?? null)];
    if (caller.owner !== undefined && caller.team !== undefined) open.push(exactlyEquals(this.dialect, 'team', caller.team));
    await this.readCommitted(runner);
    const { affected } = await runSql(runner, this.dialect, {
      sql:
        `INSERT INTO ${this.attempts} (${ATTEMPT_COLUMNS}) ` +
        `SELECT ${['varchar', 'varchar', 'varchar', 'varchar', 'varchar', 'bigint', 'text', 'text'].map(cast).join(', ')} FROM ${this.state} ` +
        `WHERE ${handle.sql} AND (owner IS NULL OR ${open.map((predicate) => predicate.sql).join(' OR ')})`,
      params: [
        attempt.machine,
        attempt.key,
        attempt.tool,
        attempt.code,
        attempt.principal,
        Date.parse(attempt.at),
        attempt.message ?? null,
        attempt.args === undefined ? null : JSON.stringify(attempt.args),
        ...handle.params,
        ...open.flatMap((predicate) => predicate.params),
      ],
    });
    return affected > 0;
  }

  /**
   * Deletes the instance's rows beyond its `keep` most recent, on its own (autocommitted, at
   * READ COMMITTED on MySQL/MariaDB: no shared locks, so concurrent trims cannot deadlock). Run
   * after the insert committed: each trim sees every row committed before it began, so once the
   * last trim of a burst ran the instance holds at most `keep` rows, however many were written
   * at once.
   */
  async trim(runner: QueryRunner, handle: string, keep: number): Promise<void> {
    await this.readCommitted(runner);
    // The derived table lets MySQL read the table it deletes from.
    await runSql(runner, this.dialect, {
      sql:
        `DELETE FROM ${this.attempts} WHERE handle = ? AND id <= ` +
        `(SELECT id FROM (SELECT id FROM ${this.attempts} WHERE handle = ? ORDER BY id DESC LIMIT 1 OFFSET ?) cut)`,
      params: [handle, handle, keep],
    });
  }

  /** The most recent `limit` attempts of one instance, oldest first. */
  async recent(runner: QueryRunner, handle: string, limit: number): Promise<WorkflowAttemptRecord[]> {
    const { records } = await runSql<AttemptRow>(runner, this.dialect, {
      sql: `SELECT ${ATTEMPT_COLUMNS} FROM ${this.attempts} WHERE handle = ? ORDER BY id DESC LIMIT ?`,
      params: [handle, limit],
    });
    return records.reverse().map(toAttempt);
  }

  /** On MySQL/MariaDB, makes the connection's next statement (its own transaction) run at READ COMMITTED. */
  private async readCommitted(runner: QueryRunner): Promise<void> {
    if (this.dialect === 'mysql') await runner.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
  }

  /** Deletes the attempts of instances that are gone (of `handles`, which were deleted). */
  async forget(runner: QueryRunner, handles: readonly string[]): Promise<void> {
    if (!handles.length) return;
    await runSql(runner, this.dialect, {
      sql: `DELETE FROM ${this.attempts} WHERE ${columnIn(this.dialect, 'handle')} AND NOT EXISTS (SELECT 1 FROM ${this.state} live WHERE live.handle = ${this.attempts}.handle)`,
      params: [listParameter(this.dialect, handles)],
    });
  }
}

/** An attempt row as a record; a row written before the details columns existed has neither a message nor arguments. */
function toAttempt(row: AttemptRow): WorkflowAttemptRecord {
  const attempt: WorkflowAttemptRecord = {
    machine: row.machine,
    key: row.handle,
    tool: row.tool,
    code: row.code,
    principal: row.principal,
    at: new Date(Number(row.at)).toISOString(),
  };
  if (row.message !== null) attempt.message = row.message;
  if (row.args !== null) attempt.args = JSON.parse(row.args) as Record<string, unknown>;
  return attempt;
}
