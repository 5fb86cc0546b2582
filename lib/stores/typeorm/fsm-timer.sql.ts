import type { QueryRunner } from 'typeorm';
import { storeTimerNotHeld, storeTimersNotReady } from '../stores.messages.js';
import type {
  WorkflowDueTimer,
  WorkflowPendingTimer,
  WorkflowTimerChanges,
  WorkflowTimerClaimRequest,
} from '../workflow-timer.interface.js';
import { columnIn, listParameter } from './sql-lists.js';
import { assertColumns, type FsmSqlDialect, quoteTableName, runSql, type SqlResult, type SqlStatement } from './typeorm-sql.js';

/** The columns of a timer row, in the order an INSERT gives their values. */
const TIMER_COLUMNS = 'handle, timer_id, machine, event, due_at, claim_token, attempts';
/** The columns a claim answers. */
const CLAIMED_COLUMNS = 'handle, timer_id, machine, event, attempts';

interface ClaimedRow {
  handle: string;
  timer_id: string;
  machine: string;
  event: string;
  attempts: number | string;
}

interface PendingRow {
  timer_id: string;
  event: string;
  due_at: number | string;
  attempts: number | string;
}

/**
 * The SQL of the timer table (`CreateMcpFsmTimer1766534400000`) in one dialect. The caller
 * chooses the `QueryRunner`, and so the transaction: {@link FsmTimerSql.apply} runs in the
 * one that writes the state, and a claim on MySQL/MariaDB (two statements) in one of its own.
 * A claimed timer's `due_at` is the end of its claim, so one index (`due_at`) serves every poll.
 */
export class FsmTimerSql {
  private readonly table: string;
  private readonly state: string;
  /**
   * Whether the timer table is in use: its schema check passed (a machine has `after`) or a
   * commit wrote timers. Until then deleting instances leaves the table alone, so a 0.3
   * database without the timer migration keeps working for machines without deadlines.
   */
  private used = false;

  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
    stateTableName: string,
  ) {
    this.table = quoteTableName(dialect, tableName);
    this.state = quoteTableName(dialect, stateTableName);
  }

  /** Throws, naming the migration to run, when the timer table lacks a column. */
  async assertSchema(runner: QueryRunner): Promise<void> {
    await assertColumns(runner, this.dialect, { columns: TIMER_COLUMNS, from: this.table }, (error) =>
      storeTimersNotReady(this.table, error),
    );
    this.used = true;
  }

  /** Whether deleting instances must delete their timers (see {@link FsmTimerSql.forget}). */
  get inUse(): boolean {
    return this.used;
  }

  /**
   * Writes a commit's timer changes for instance `handle`: deletes the fired timer (which
   * must still be held by its claim token, or this throws and the caller's transaction rolls
   * back), deletes the cancelled ones, then writes the scheduled ones over any row of the same
   * id (an upsert, never a DELETE first: on MySQL/MariaDB a DELETE that finds no row locks the
   * gap where it would be, and concurrent starts inserting into each other's gaps deadlocked).
   * Up to three statements; with `created` (the caller's transaction inserted the instance's row,
   * which no timer outlives) nothing is deleted.
   */
  async apply(runner: QueryRunner, handle: string, changes: WorkflowTimerChanges, created = false): Promise<void> {
    this.used = true;
    const { fired } = changes;
    if (fired) {
      const { affected } = await this.run(runner, {
        sql: `DELETE FROM ${this.table} WHERE handle = ? AND timer_id = ? AND claim_token = ?`,
        params: [handle, fired.id, fired.token],
      });
      if (affected !== 1) throw new Error(storeTimerNotHeld(handle, fired.id));
    }
    // The fired timer's row is gone already (the DELETE above), and a rescheduled one is overwritten by the upsert below.
    const rescheduled = new Set(changes.schedule.map((timer) => timer.id));
    const cancelled = [...new Set(changes.cancel)].filter((id) => id !== fired?.id && !rescheduled.has(id));
    if (cancelled.length > 0 && !created) {
      await this.run(runner, {
        sql: `DELETE FROM ${this.table} WHERE handle = ? AND ${columnIn(this.dialect, 'timer_id')}`,
        params: [handle, listParameter(this.dialect, cancelled)],
      });
    }
    if (changes.schedule.length > 0) {
      const rows = changes.schedule.map(() => '(?, ?, ?, ?, ?, NULL, 0)').join(', ');
      const params = changes.schedule.flatMap((timer) => [handle, timer.id, changes.machine, timer.event, timer.dueAt]);
      await this.run(runner, { sql: `INSERT INTO ${this.table} (${TIMER_COLUMNS}) VALUES ${rows} ${this.overwrite()}`, params });
    }
  }

  /** The clause that makes a timer INSERT overwrite the row of the same handle and timer id: due anew, unclaimed, no attempts. */
  private overwrite(): string {
    if (this.dialect === 'mysql') {
      return 'ON DUPLICATE KEY UPDATE machine = VALUES(machine), event = VALUES(event), due_at = VALUES(due_at), claim_token = NULL, attempts = 0';
    }
    return 'ON CONFLICT (handle, timer_id) DO UPDATE SET machine = excluded.machine, event = excluded.event, due_at = excluded.due_at, claim_token = NULL, attempts = 0';
  }

  /**
   * Claims up to `limit` due timers, earliest first, moving each to the end of its claim.
   * PostgreSQL: one `UPDATE … WHERE (handle, timer_id) IN (SELECT … FOR UPDATE SKIP LOCKED)
   * RETURNING`; SQLite (one writer at a time): one conditional `UPDATE … RETURNING`;
   * MySQL/MariaDB: `SELECT … FOR UPDATE SKIP LOCKED`, then one UPDATE of the rows it locked
   * (the caller runs both in one transaction). When nothing is due, the index on `due_at`
   * answers the one query at once.
   */
  async claimDue(runner: QueryRunner, { now, limit, token, leaseMs }: WorkflowTimerClaimRequest): Promise<WorkflowDueTimer[]> {
    const until = now + leaseMs;
    const due = `SELECT %COLUMNS% FROM ${this.table} WHERE due_at <= ? ORDER BY due_at LIMIT ?`;
    if (this.dialect === 'postgres' || this.dialect === 'sqlite') {
      const picked =
        this.dialect === 'postgres'
          ? `(handle, timer_id) IN (${due.replace('%COLUMNS%', 'handle, timer_id')} FOR UPDATE SKIP LOCKED)`
          : `rowid IN (${due.replace('%COLUMNS%', 'rowid')})`;
      const { records } = await this.run<ClaimedRow>(runner, {
        sql: `UPDATE ${this.table} SET claim_token = ?, due_at = ? WHERE ${picked} RETURNING ${CLAIMED_COLUMNS}`,
        params: [token, until, now, limit],
      });
      return records.map(toDueTimer);
    }
    const { records } = await this.run<ClaimedRow>(runner, {
      sql: `${due.replace('%COLUMNS%', CLAIMED_COLUMNS)} FOR UPDATE SKIP LOCKED`,
      params: [now, limit],
    });
    if (records.length > 0) {
      await this.run(runner, {
        sql: `UPDATE ${this.table} SET claim_token = ?, due_at = ? WHERE (handle, timer_id) IN (${records.map(() => '(?, ?)').join(', ')})`,
        params: [token, until, ...records.flatMap((row) => [row.handle, row.timer_id])],
      });
    }
    return records.map(toDueTimer);
  }

  /** Deletes a timer `token` still holds. */
  async drop(runner: QueryRunner, handle: string, id: string, token: string): Promise<void> {
    await this.run(runner, {
      sql: `DELETE FROM ${this.table} WHERE handle = ? AND timer_id = ? AND claim_token = ?`,
      params: [handle, id, token],
    });
  }

  /** Makes a timer `token` still holds due again at `dueAt`, one attempt more. */
  async retry(runner: QueryRunner, handle: string, id: string, token: string, dueAt: number): Promise<void> {
    await this.run(runner, {
      sql: `UPDATE ${this.table} SET due_at = ?, claim_token = NULL, attempts = attempts + 1 WHERE handle = ? AND timer_id = ? AND claim_token = ?`,
      params: [dueAt, handle, id, token],
    });
  }

  /**
   * Deletes the timers of instances that are gone (of `handles`, which the caller deleted in the
   * same transaction; one whose row is still there keeps its timers). Nothing while the table is
   * not in use.
   */
  async forget(runner: QueryRunner, handles: readonly string[]): Promise<void> {
    if (!this.used || !handles.length) return;
    await this.run(runner, {
      sql: `DELETE FROM ${this.table} WHERE ${columnIn(this.dialect, 'handle')} AND NOT EXISTS (SELECT 1 FROM ${this.state} live WHERE live.handle = ${this.table}.handle)`,
      params: [listParameter(this.dialect, handles)],
    });
  }

  /** The pending timers of one instance, earliest first. */
  async pending(runner: QueryRunner, handle: string): Promise<WorkflowPendingTimer[]> {
    const { records } = await this.run<PendingRow>(runner, {
      sql: `SELECT timer_id, event, due_at, attempts FROM ${this.table} WHERE handle = ? ORDER BY due_at, timer_id`,
      params: [handle],
    });
    return records.map((row) => ({ id: row.timer_id, event: row.event, dueAt: Number(row.due_at), attempts: Number(row.attempts) }));
  }

  /** The pending timers of many instances, earliest first, by key (one SELECT; keys with none left out). */
  async pendingOf(runner: QueryRunner, handles: readonly string[]): Promise<Map<string, WorkflowPendingTimer[]>> {
    const byKey = new Map<string, WorkflowPendingTimer[]>();
    if (!handles.length) return byKey;
    const { records } = await this.run<PendingRow & { handle: string }>(runner, {
      sql: `SELECT handle, timer_id, event, due_at, attempts FROM ${this.table} WHERE ${columnIn(this.dialect, 'handle')} ORDER BY due_at, timer_id`,
      params: [listParameter(this.dialect, handles)],
    });
    for (const row of records) {
      const timers = byKey.get(row.handle) ?? [];
      timers.push({ id: row.timer_id, event: row.event, dueAt: Number(row.due_at), attempts: Number(row.attempts) });
      byKey.set(row.handle, timers);
    }
    return byKey;
  }

  private run<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlResult<T>> {
    return runSql<T>(runner, this.dialect, statement);
  }
}

function toDueTimer(row: ClaimedRow): WorkflowDueTimer {
  return { key: row.handle, machine: row.machine, id: row.timer_id, event: row.event, attempts: Number(row.attempts) };
}
