import type { QueryRunner } from 'typeorm';
import type { WorkflowSweepRequest } from '../atomic-fsm-state-store.interface.js';
import { parseInstanceKey } from '../fsm-instance-key.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from '../workflow-transition-record.interface.js';
import type { WorkflowApprovalNote } from '../workflow-waiting-request.interface.js';
import { storeSchemaNotReady } from '../stores.messages.js';
import type { WorkflowHistoryPage } from '../workflow-state-reader.interface.js';
import { contextText, type FsmSnapshotRow, type FsmStateRow, toSnapshot, waitingText } from './fsm-state.rows.js';
import { insertedOnce } from './mysql-errno.js';
import {
  assertColumns,
  exactlyEquals,
  type FsmSqlDialect,
  quoteTableName,
  runSql,
  type SqlResult,
  type SqlStatement,
} from './typeorm-sql.js';

/** The columns of a state row, in the order `rowValues` gives their values. */
const STATE_COLUMNS = 'handle, machine, state, context, owner, waiting, team, lease_token, lease_until, created_at, updated_at';
/** The columns a snapshot is read from (`toSnapshot`). */
export const SNAPSHOT_COLUMNS = 'state, context, owner, waiting, team, updated_at';
/** The columns of a history row, in the order `recordParams` gives their values. */
const HISTORY_COLUMNS = 'machine, handle, from_state, to_state, event, tool, principal, at, approval';

/** Lease fields written by a claim. */
export interface FsmLease {
  token: string;
  until: number;
}

/**
 * The SQL of the state and history tables in one dialect. Every method is one statement
 * (one round trip) unless its JSDoc says otherwise; the caller chooses the `QueryRunner`
 * and therefore the transaction.
 */
export class FsmStateSql {
  private readonly state: string;
  private readonly history: string;

  /** `tableName` and `historyTableName` as `BoundedQueries.table` returns them. */
  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
    historyTableName: string,
  ) {
    this.state = quoteTableName(dialect, tableName);
    this.history = quoteTableName(dialect, historyTableName);
  }

  /** Whether state change + history row need a transaction (no data-modifying CTE in the dialect). */
  needsTransactionForRecord(): boolean {
    return this.dialect !== 'postgres';
  }

  /** Throws, naming the migrations to run, when the state table lacks a column this version reads or writes. */
  async assertSchema(runner: QueryRunner): Promise<void> {
    await assertColumns(runner, this.dialect, { columns: STATE_COLUMNS, from: this.state }, (error) =>
      storeSchemaNotReady(this.state, error),
    );
    await assertColumns(runner, this.dialect, { columns: HISTORY_COLUMNS, from: this.history }, (error) =>
      storeSchemaNotReady(this.history, error),
    );
  }

  /** Snapshot of one instance. */
  async load(runner: QueryRunner, handle: string): Promise<WorkflowSnapshot | undefined> {
    const { records } = await this.run<FsmSnapshotRow>(runner, {
      sql: `SELECT ${SNAPSHOT_COLUMNS} FROM ${this.state} WHERE handle = ?`,
      params: [handle],
    });
    return records[0] && toSnapshot(records[0]);
  }

  /** Snapshots of many instances in one SELECT (one JSON or array parameter, so no placeholder limit). */
  async loadMany(runner: QueryRunner, handles: readonly string[]): Promise<Map<string, WorkflowSnapshot>> {
    const snapshots = new Map<string, WorkflowSnapshot>();
    if (!handles.length) return snapshots;
    const { records } = await this.run<FsmSnapshotRow & { handle: string }>(runner, {
      sql: this.selectByHandles(`handle, ${SNAPSHOT_COLUMNS}`),
      params: [this.listParameter(handles)],
    });
    for (const row of records) snapshots.set(row.handle, toSnapshot(row));
    return snapshots;
  }

  /** The states of many instances in one SELECT of the key and state columns only (same parameter as `loadMany`). */
  async loadStates(runner: QueryRunner, handles: readonly string[]): Promise<Map<string, string>> {
    const states = new Map<string, string>();
    if (!handles.length) return states;
    const { records } = await this.run<{ handle: string; state: string }>(runner, {
      sql: this.selectByHandles('handle, state'),
      params: [this.listParameter(handles)],
    });
    for (const row of records) states.set(row.handle, row.state);
    return states;
  }

  /** Inserts or replaces the state of an instance (its lease is kept). */
  async save(runner: QueryRunner, handle: string, snapshot: WorkflowSnapshot): Promise<void> {
    const upsert =
      this.dialect === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE state = VALUES(state), context = VALUES(context), owner = VALUES(owner), waiting = VALUES(waiting), team = VALUES(team), updated_at = VALUES(updated_at)'
        : 'ON CONFLICT (handle) DO UPDATE SET state = excluded.state, context = excluded.context, owner = excluded.owner, waiting = excluded.waiting, team = excluded.team, updated_at = excluded.updated_at';
    await this.run(runner, {
      sql: `INSERT INTO ${this.state} (${STATE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ${upsert}`,
      params: rowValues(handle, snapshot),
    });
  }

  /**
   * Inserts a new instance, leased when `lease` is given, with its history row when `record`
   * is given; `false` when the handle exists. With a record, PostgreSQL does both in one
   * statement; the other dialects take two, so the caller runs them in a transaction.
   * An insert racing a concurrent uncommitted insert of the same handle waits for it.
   */
  async insert(
    runner: QueryRunner,
    handle: string,
    snapshot: WorkflowSnapshot,
    options: { lease?: FsmLease; record?: WorkflowTransitionRecord } = {},
  ): Promise<boolean> {
    const { lease, record } = options;
    const insert: SqlStatement = {
      sql: `INSERT INTO ${this.state} (${STATE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)${
        this.dialect === 'mysql' ? '' : ' ON CONFLICT (handle) DO NOTHING'
      }`,
      params: rowValues(handle, snapshot, lease),
    };
    if (record && this.dialect === 'postgres') {
      return (await this.run(runner, this.withRecord(`${insert.sql} RETURNING handle`, insert.params, record))).affected === 1;
    }
    const inserted = await insertedOnce(() => this.run(runner, insert));
    if (inserted && record) await this.insertRecord(runner, record);
    return inserted;
  }

  /** The row of one instance (its handle compared exactly, as the claim does), without locking it (for diagnosing a failed claim). */
  async inspect(runner: QueryRunner, handle: string): Promise<FsmStateRow | undefined> {
    const key = exactlyEquals(this.dialect, 'handle', handle);
    const { records } = await this.run<FsmStateRow>(runner, {
      sql: `SELECT state, owner, team, lease_until FROM ${this.state} WHERE ${key.sql}`,
      params: key.params,
    });
    return records[0];
  }

  /**
   * Locks the row of one instance (its handle compared exactly) for the rest of the current transaction and returns it
   * (with its snapshot columns); `undefined` when it is absent or another transaction holds it. PostgreSQL and MySQL:
   * `SELECT … FOR UPDATE SKIP LOCKED` (no error, so the transaction stays usable).
   * SQLite: a no-op `UPDATE … RETURNING`, which takes the database write lock at once
   * (`BEGIN IMMEDIATE` semantics, so a later write cannot fail with SQLITE_BUSY).
   */
  async lock(runner: QueryRunner, handle: string): Promise<(FsmStateRow & FsmSnapshotRow) | undefined> {
    const columns = 'state, context, owner, waiting, team, lease_until, updated_at';
    const key = exactlyEquals(this.dialect, 'handle', handle);
    const sql =
      this.dialect === 'sqlite'
        ? `UPDATE ${this.state} SET updated_at = updated_at WHERE ${key.sql} RETURNING ${columns}`
        : `SELECT ${columns} FROM ${this.state} WHERE ${key.sql} FOR UPDATE SKIP LOCKED`;
    const { records } = await this.run<FsmStateRow & FsmSnapshotRow>(runner, { sql, params: key.params });
    return records[0];
  }

  /**
   * Stores a new state and context (the snapshot's context replaces the stored one; none
   * clears it) and clears the lease; only while `token` holds the lease when it is given. Writes the history row when `record` is given (PostgreSQL: in the same statement;
   * other dialects: a second one, which the caller runs in a transaction). `false` when no
   * row matched.
   */
  async update(
    runner: QueryRunner,
    handle: string,
    token: string | undefined,
    snapshot: WorkflowSnapshot,
    record?: WorkflowTransitionRecord,
  ): Promise<boolean> {
    const { state, owner = null, team = null } = snapshot;
    const params: unknown[] = [state, contextText(snapshot), owner, waitingText(snapshot), team, Date.parse(snapshot.updatedAt), handle];
    if (token !== undefined) params.push(token);
    const update = `UPDATE ${this.state} SET state = ?, context = ?, owner = COALESCE(?, owner), waiting = ?, team = COALESCE(?, team), updated_at = ?, lease_token = NULL, lease_until = NULL WHERE handle = ?${
      token === undefined ? '' : ' AND lease_token = ?'
    }`;
    if (record && this.dialect === 'postgres') {
      return (await this.run(runner, this.withRecord(`${update} RETURNING handle`, params, record))).affected === 1;
    }
    const updated = (await this.run(runner, { sql: update, params })).affected === 1;
    if (updated && record) await this.insertRecord(runner, record);
    return updated;
  }

  /** Deletes instances (their history stays). */
  async delete(runner: QueryRunner, handles: readonly string[]): Promise<void> {
    if (!handles.length) return;
    await this.run(runner, { sql: `DELETE FROM ${this.state} WHERE ${this.handleIn()}`, params: [this.listParameter(handles)] });
  }

  /** Deletes one instance while `token` holds its lease; whether it did. */
  async deleteLeased(runner: QueryRunner, handle: string, token: string): Promise<boolean> {
    return (
      (await this.run(runner, { sql: `DELETE FROM ${this.state} WHERE handle = ? AND lease_token = ?`, params: [handle, token] }))
        .affected === 1
    );
  }

  /**
   * Retention: picks up to `limit` instances that match the request and no live lease holds,
   * deletes them (checking the condition again, so a concurrent transition or claim keeps its
   * row), then the history of those that are gone. Three statements, each safe to run from
   * several processes at once; answers how many instances it deleted, and the handles it
   * picked (those deleted among them, for the other tables kept by handle).
   */
  async sweep(
    runner: QueryRunner,
    { finished, idle, limit }: WorkflowSweepRequest,
    now: number,
  ): Promise<{ deleted: number; picked: string[] }> {
    const conditions: SqlStatement[] = [];
    for (const { machine, states } of finished?.machines ?? []) {
      if (states.length) {
        conditions.push({
          sql: `(machine = ? AND state IN (${states.map(() => '?').join(', ')}) AND updated_at < ?)`,
          params: [machine, ...states, finished!.before],
        });
      }
    }
    if (idle?.machines.length) {
      conditions.push({
        sql: `(machine IN (${idle.machines.map(() => '?').join(', ')}) AND updated_at < ?)`,
        params: [...idle.machines, idle.before],
      });
    }
    if (!conditions.length || limit <= 0) return { deleted: 0, picked: [] };
    const where = `(${conditions.map((condition) => condition.sql).join(' OR ')}) AND (lease_until IS NULL OR lease_until < ?)`;
    const params = [...conditions.flatMap((condition) => condition.params), now];
    const { records } = await this.run<{ handle: string }>(runner, {
      sql: `SELECT handle FROM ${this.state} WHERE ${where} LIMIT ?`,
      params: [...params, limit],
    });
    const handles = records.map((row) => row.handle);
    if (!handles.length) return { deleted: 0, picked: [] };
    const { affected } = await this.run(runner, {
      sql: `DELETE FROM ${this.state} WHERE ${this.handleIn()} AND ${where}`,
      params: [this.listParameter(handles), ...params],
    });
    await this.run(runner, {
      sql: `DELETE FROM ${this.history} WHERE ${this.handleIn()} AND NOT EXISTS (SELECT 1 FROM ${this.state} live WHERE live.handle = ${this.history}.handle)`,
      params: [this.listParameter(handles)],
    });
    return { deleted: affected, picked: handles };
  }

  /**
   * `columns` of the instances whose handles are the list bound as one parameter (see
   * `listParameter`). On SQLite the list is the outer loop of a join, each handle one lookup of
   * the primary key: `handle IN (SELECT … json_each)` first builds a temporary index of the
   * list, which costs more than the lookups (about 1.9 ms against 1.2 ms for 1,000 handles).
   */
  private selectByHandles(columns: string): string {
    return this.dialect === 'sqlite'
      ? `SELECT ${columns} FROM json_each(?) AS wanted CROSS JOIN ${this.state} ON ${this.state}.handle = wanted.value`
      : `SELECT ${columns} FROM ${this.state} WHERE ${this.handleIn()}`;
  }

  /** `handle` is one of a list bound as one parameter (see `listParameter`). */
  private handleIn(): string {
    return {
      postgres: 'handle = ANY(?)',
      mysql: 'handle IN (?)',
      sqlite: 'handle IN (SELECT value FROM json_each(?))',
    }[this.dialect];
  }

  /** A list of handles or states as the one parameter of `handleIn` or `stateIn`. */
  private listParameter(values: readonly string[]): unknown {
    return this.dialect === 'sqlite' ? JSON.stringify(values) : [...values];
  }

  /** Extends a live lease; `false` when `token` no longer holds it. */
  async renew(runner: QueryRunner, handle: string, token: string, leaseUntil: number): Promise<boolean> {
    const { affected } = await this.run(runner, {
      sql: `UPDATE ${this.state} SET lease_until = ? WHERE handle = ? AND lease_token = ?`,
      params: [leaseUntil, handle, token],
    });
    return affected === 1;
  }

  /** Clears the lease when `token` still holds it. */
  async release(runner: QueryRunner, handle: string, token: string): Promise<void> {
    await this.run(runner, {
      sql: `UPDATE ${this.state} SET lease_token = NULL, lease_until = NULL WHERE handle = ? AND lease_token = ?`,
      params: [handle, token],
    });
  }

  /** History rows of one instance, oldest first. */
  async records(runner: QueryRunner, handle: string): Promise<WorkflowTransitionRecord[]> {
    const { records } = await this.run<HistoryRow>(runner, {
      sql: `SELECT ${HISTORY_COLUMNS} FROM ${this.history} WHERE handle = ? ORDER BY at, id`,
      params: [handle],
    });
    return records.map(toRecord);
  }

  /** The most recent `limit` history rows of one instance, oldest first: one SELECT of `limit + 1` rows on the `(handle, at)` index. */
  async recentRecords(runner: QueryRunner, handle: string, limit: number): Promise<WorkflowHistoryPage> {
    const { records } = await this.run<HistoryRow>(runner, {
      sql: `SELECT ${HISTORY_COLUMNS} FROM ${this.history} WHERE handle = ? ORDER BY at DESC, id DESC LIMIT ?`,
      params: [handle, limit + 1],
    });
    return { entries: records.slice(0, limit).reverse().map(toRecord), truncated: records.length > limit };
  }

  /** Writes one history row. */
  async insertRecord(runner: QueryRunner, record: WorkflowTransitionRecord): Promise<void> {
    await this.run(runner, {
      sql: `INSERT INTO ${this.history} (${HISTORY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      params: recordParams(record),
    });
  }

  /** A data-modifying CTE (PostgreSQL) that writes the history row when `change` returned a row. */
  private withRecord(change: string, params: unknown[], record: WorkflowTransitionRecord): SqlStatement {
    return {
      sql:
        `WITH changed AS (${change}) ` +
        `INSERT INTO ${this.history} (${HISTORY_COLUMNS}) ` +
        'SELECT ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::bigint, ?::text FROM changed',
      params: [...params, ...recordParams(record)],
    };
  }

  private run<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlResult<T>> {
    return runSql<T>(runner, this.dialect, statement);
  }
}

interface HistoryRow {
  machine: string;
  handle: string;
  from_state: string | null;
  to_state: string;
  event: string | null;
  tool: string;
  principal: string | null;
  at: string | number;
  approval: string | null;
}

function toRecord(row: HistoryRow): WorkflowTransitionRecord {
  return {
    machine: row.machine,
    key: row.handle,
    from: row.from_state,
    to: row.to_state,
    event: row.event,
    tool: row.tool,
    principal: row.principal,
    at: new Date(Number(row.at)).toISOString(),
    ...(row.approval === null ? {} : { approval: JSON.parse(row.approval) as WorkflowApprovalNote }),
  };
}

/** The values of a state row's columns (`STATE_COLUMNS`); leased when `lease` is given. */
function rowValues(handle: string, snapshot: WorkflowSnapshot, lease?: FsmLease): unknown[] {
  return [
    handle,
    parseInstanceKey(handle).machine,
    snapshot.state,
    contextText(snapshot),
    snapshot.owner ?? null,
    waitingText(snapshot),
    snapshot.team ?? null,
    lease?.token ?? null,
    lease?.until ?? null,
    Date.now(),
    Date.parse(snapshot.updatedAt),
  ];
}

function recordParams(record: WorkflowTransitionRecord): unknown[] {
  return [
    record.machine,
    record.key,
    record.from,
    record.to,
    record.event,
    record.tool,
    record.principal,
    Date.parse(record.at),
    record.approval === undefined ? null : JSON.stringify(record.approval),
  ];
}
