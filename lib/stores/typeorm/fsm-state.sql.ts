import type { QueryRunner } from 'typeorm';
import { storeInvalidTableName, storeUnsupportedDatabase } from '../../mcp.messages.js';
import type { FsmClaimRequest, FsmClaimResult } from '../atomic-fsm-state-store.interface.js';
import type { FsmSnapshot } from '../fsm-state-store.interface.js';
import { matchesAllowedState } from '../fsm-state-match.js';
import type { FsmTransitionRecord } from '../fsm-transition-record.interface.js';
import type { FsmLockRequest } from '../transactional-fsm-state-store.interface.js';

/** SQL dialects the TypeORM store speaks. */
export type FsmSqlDialect = 'postgres' | 'mysql' | 'sqlite';

/** The dialect of a TypeORM `DataSource` type; throws for a type the store does not support. */
export function fsmSqlDialect(type: string): FsmSqlDialect {
  switch (type) {
    case 'postgres':
      return 'postgres';
    case 'mysql':
    case 'mariadb':
      return 'mysql';
    case 'better-sqlite3':
      return 'sqlite';
    default:
      throw new Error(storeUnsupportedDatabase(type));
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Checks that a table name is a plain (optionally schema-qualified) identifier and returns it. */
export function assertFsmTableName(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(storeInvalidTableName(name));
  return name;
}

/** The machine id of a store key `"<machineId>:<instanceKey>"`. */
function machineOfHandle(handle: string): string {
  const colon = handle.indexOf(':');
  return colon === -1 ? handle : handle.slice(0, colon);
}

/** One stored instance row, as the drivers return it (pg and mysql2 return BIGINT as a string). */
export interface FsmStateRow {
  state: string;
  owner: string | null;
  lease_until: string | number | null;
  updated_at?: string | number;
}

/** Lease fields written by a claim. */
export interface FsmLease {
  token: string;
  until: number;
}

/**
 * Decides a claim from an instance row: `claimed` means the row is free and in an allowed
 * state (the caller has not taken it yet).
 */
export function judgeFsmClaim(row: FsmStateRow, request: FsmLockRequest, now: number): FsmClaimResult {
  if (request.owner !== undefined && row.owner !== request.owner) return { status: 'unknown' };
  if (!matchesAllowedState(row.state, request.allowedStates)) return { status: 'forbidden', state: row.state };
  if (row.lease_until !== null && Number(row.lease_until) >= now) return { status: 'busy', state: row.state };
  return { status: 'claimed', state: row.state };
}

/** A verdict for a row the caller could not take: a free, allowed row is held elsewhere, so `busy`. */
export function notTaken(result: FsmClaimResult): FsmClaimResult {
  return result.status === 'claimed' ? { status: 'busy', state: result.state } : result;
}

interface Statement {
  sql: string;
  params: unknown[];
}

interface Result<T> {
  records: T[];
  affected: number;
  /** MySQL's insert id (the OK packet's `LAST_INSERT_ID`). */
  insertId?: number;
}

const DUPLICATE_KEY_ERRNO = 1062;
const DEADLOCK_ERRNO = 1213;

/**
 * The SQL of the state and history tables in one dialect. Every method is one statement
 * (one round trip) unless its JSDoc says otherwise; the caller chooses the `QueryRunner`
 * and therefore the transaction.
 */
export class FsmStateSql {
  private readonly state: string;
  private readonly history: string;
  private readonly columns = 'handle, machine, state, owner, lease_token, lease_until, created_at, updated_at';

  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
    historyTableName: string,
  ) {
    this.state = this.quote(assertFsmTableName(tableName));
    this.history = this.quote(assertFsmTableName(historyTableName));
  }

  /** Whether state change + history row need a transaction (no data-modifying CTE in the dialect). */
  needsTransactionForRecord(): boolean {
    return this.dialect !== 'postgres';
  }

  /** Snapshot of one instance. */
  async load(runner: QueryRunner, handle: string): Promise<FsmSnapshot | undefined> {
    const { records } = await this.run<FsmStateRow>(runner, {
      sql: `SELECT state, owner, updated_at FROM ${this.state} WHERE handle = ?`,
      params: [handle],
    });
    return records[0] && toSnapshot(records[0]);
  }

  /** Snapshots of many instances in one SELECT (one JSON or array parameter, so no placeholder limit). */
  async loadMany(runner: QueryRunner, handles: readonly string[]): Promise<Map<string, FsmSnapshot>> {
    const snapshots = new Map<string, FsmSnapshot>();
    if (!handles.length) return snapshots;
    const { records } = await this.run<FsmStateRow & { handle: string }>(runner, {
      sql: `SELECT handle, state, owner, updated_at FROM ${this.state} WHERE ${this.handleIn()}`,
      params: [this.handleList(handles)],
    });
    for (const row of records) snapshots.set(row.handle, toSnapshot(row));
    return snapshots;
  }

  /** Inserts or replaces the state of an instance (its lease is kept). */
  async save(runner: QueryRunner, handle: string, snapshot: FsmSnapshot): Promise<void> {
    const updatedAt = Date.parse(snapshot.updatedAt);
    const upsert =
      this.dialect === 'mysql'
        ? 'ON DUPLICATE KEY UPDATE state = VALUES(state), owner = VALUES(owner), updated_at = VALUES(updated_at)'
        : 'ON CONFLICT (handle) DO UPDATE SET state = excluded.state, owner = excluded.owner, updated_at = excluded.updated_at';
    await this.run(runner, {
      sql: `INSERT INTO ${this.state} (${this.columns}) VALUES (?, ?, ?, ?, NULL, NULL, ?, ?) ${upsert}`,
      params: [handle, machineOfHandle(handle), snapshot.state, snapshot.owner ?? null, Date.now(), updatedAt],
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
    snapshot: FsmSnapshot,
    options: { lease?: FsmLease; record?: FsmTransitionRecord } = {},
  ): Promise<boolean> {
    const { lease, record } = options;
    const insert: Statement = {
      sql: `INSERT INTO ${this.state} (${this.columns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)${
        this.dialect === 'mysql' ? '' : ' ON CONFLICT (handle) DO NOTHING'
      }`,
      params: [
        handle,
        machineOfHandle(handle),
        snapshot.state,
        snapshot.owner ?? null,
        lease?.token ?? null,
        lease?.until ?? null,
        Date.now(),
        Date.parse(snapshot.updatedAt),
      ],
    };
    if (record && this.dialect === 'postgres') {
      return (await this.run(runner, this.withRecord(`${insert.sql} RETURNING handle`, insert.params, record))).affected === 1;
    }
    let inserted: boolean;
    try {
      inserted = (await this.run(runner, insert)).affected === 1;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      inserted = false;
    }
    if (inserted && record) await this.insertRecord(runner, record);
    return inserted;
  }

  /**
   * The claim's conditional UPDATE: takes the lease when the instance is in an allowed state,
   * owned by `request.owner` (when given) and not leased. Returns the state when it took the
   * lease. PostgreSQL and SQLite: one `UPDATE … RETURNING`. MySQL/MariaDB have no
   * `UPDATE … RETURNING`: the UPDATE passes the position of the allowed state that the
   * stored state equals through `LAST_INSERT_ID(expr)` (the OK packet's insert id), so an
   * exact match is one round trip; a descendant (`'review.legal'` for `'review'`) costs a
   * second one, a SELECT by lease token.
   */
  async claim(runner: QueryRunner, request: FsmClaimRequest, lease: FsmLease, now: number): Promise<string | undefined> {
    const allowed = allowedStatesPredicate(request.allowedStates);
    const where = `WHERE handle = ? AND ${allowed.sql} AND (lease_until IS NULL OR lease_until < ?)${
      request.owner === undefined ? '' : ' AND owner = ?'
    }`;
    const whereParams = [request.handle, ...allowed.params, now, ...(request.owner === undefined ? [] : [request.owner])];
    if (this.dialect !== 'mysql') {
      const { records } = await this.run<{ state: string }>(runner, {
        sql: `UPDATE ${this.state} SET lease_token = ?, lease_until = ? ${where} RETURNING state`,
        params: [lease.token, lease.until, ...whereParams],
      });
      return records[0]?.state;
    }
    const position = request.allowedStates.length
      ? `CASE state ${request.allowedStates.map((_, index) => `WHEN ? THEN ${index + 1}`).join(' ')} ELSE 0 END`
      : '0';
    const updated = await this.run(runner, {
      sql: `UPDATE ${this.state} SET lease_token = IF(LAST_INSERT_ID(${position}) < 0, NULL, ?), lease_until = ? ${where}`,
      params: [...request.allowedStates, lease.token, lease.until, ...whereParams],
    });
    if (updated.affected !== 1) return undefined;
    if (updated.insertId) return request.allowedStates[updated.insertId - 1];
    const { records } = await this.run<{ state: string }>(runner, {
      sql: `SELECT state FROM ${this.state} WHERE handle = ? AND lease_token = ?`,
      params: [request.handle, lease.token],
    });
    return records[0]?.state;
  }

  /** The row of one instance, without locking it (for diagnosing a failed claim). */
  async inspect(runner: QueryRunner, handle: string): Promise<FsmStateRow | undefined> {
    const { records } = await this.run<FsmStateRow>(runner, {
      sql: `SELECT state, owner, lease_until FROM ${this.state} WHERE handle = ?`,
      params: [handle],
    });
    return records[0];
  }

  /**
   * Locks the row of one instance for the rest of the current transaction and returns it;
   * `undefined` when it is absent or another transaction holds it. PostgreSQL and MySQL:
   * `SELECT … FOR UPDATE SKIP LOCKED` (no error, so the transaction stays usable).
   * SQLite: a no-op `UPDATE … RETURNING`, which takes the database write lock at once
   * (`BEGIN IMMEDIATE` semantics, so a later write cannot fail with SQLITE_BUSY).
   */
  async lock(runner: QueryRunner, handle: string): Promise<FsmStateRow | undefined> {
    const sql =
      this.dialect === 'sqlite'
        ? `UPDATE ${this.state} SET updated_at = updated_at WHERE handle = ? RETURNING state, owner, lease_until`
        : `SELECT state, owner, lease_until FROM ${this.state} WHERE handle = ? FOR UPDATE SKIP LOCKED`;
    const { records } = await this.run<FsmStateRow>(runner, { sql, params: [handle] });
    return records[0];
  }

  /**
   * Stores a new state and clears the lease; only while `token` holds the lease when it is
   * given. Writes the history row when `record` is given (PostgreSQL: in the same statement;
   * other dialects: a second one, which the caller runs in a transaction). `false` when no
   * row matched.
   */
  async update(
    runner: QueryRunner,
    handle: string,
    token: string | undefined,
    snapshot: FsmSnapshot,
    record?: FsmTransitionRecord,
  ): Promise<boolean> {
    const params: unknown[] = [snapshot.state, snapshot.owner ?? null, Date.parse(snapshot.updatedAt), handle];
    if (token !== undefined) params.push(token);
    const update = `UPDATE ${this.state} SET state = ?, owner = COALESCE(?, owner), updated_at = ?, lease_token = NULL, lease_until = NULL WHERE handle = ?${
      token === undefined ? '' : ' AND lease_token = ?'
    }`;
    if (record && this.dialect === 'postgres') {
      return (await this.run(runner, this.withRecord(`${update} RETURNING handle`, params, record))).affected === 1;
    }
    const updated = (await this.run(runner, { sql: update, params })).affected === 1;
    if (updated && record) await this.insertRecord(runner, record);
    return updated;
  }

  /** Clears the lease when `token` still holds it. */
  /** Deletes instances (their history stays). */
  async delete(runner: QueryRunner, handles: readonly string[]): Promise<void> {
    if (!handles.length) return;
    await this.run(runner, { sql: `DELETE FROM ${this.state} WHERE ${this.handleIn()}`, params: [this.handleList(handles)] });
  }

  /** `handle` is one of a list bound as one parameter (see `handleList`). */
  private handleIn(): string {
    return {
      postgres: 'handle = ANY(?)',
      mysql: 'handle IN (?)',
      sqlite: 'handle IN (SELECT value FROM json_each(?))',
    }[this.dialect];
  }

  /** A list of handles as the one parameter of `handleIn`. */
  private handleList(handles: readonly string[]): unknown {
    return this.dialect === 'sqlite' ? JSON.stringify(handles) : [...handles];
  }

  /** Extends a live lease; `false` when `token` no longer holds it. */
  async renew(runner: QueryRunner, handle: string, token: string, leaseUntil: number): Promise<boolean> {
    const { affected } = await this.run(runner, {
      sql: `UPDATE ${this.state} SET lease_until = ? WHERE handle = ? AND lease_token = ?`,
      params: [leaseUntil, handle, token],
    });
    return affected === 1;
  }

  async release(runner: QueryRunner, handle: string, token: string): Promise<void> {
    await this.run(runner, {
      sql: `UPDATE ${this.state} SET lease_token = NULL, lease_until = NULL WHERE handle = ? AND lease_token = ?`,
      params: [handle, token],
    });
  }

  /** History rows of one instance, oldest first. */
  async records(runner: QueryRunner, handle: string): Promise<FsmTransitionRecord[]> {
    const { records } = await this.run<HistoryRow>(runner, {
      sql: `SELECT machine, handle, from_state, to_state, event, tool, principal, at FROM ${this.history} WHERE handle = ? ORDER BY at, id`,
      params: [handle],
    });
    return records.map((row) => ({
      machine: row.machine,
      handle: row.handle,
      from: row.from_state,
      to: row.to_state,
      event: row.event,
      tool: row.tool,
      principal: row.principal,
      at: new Date(Number(row.at)).toISOString(),
    }));
  }

  private async insertRecord(runner: QueryRunner, record: FsmTransitionRecord): Promise<void> {
    await this.run(runner, {
      sql: `INSERT INTO ${this.history} (machine, handle, from_state, to_state, event, tool, principal, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      params: recordParams(record),
    });
  }

  /** A data-modifying CTE (PostgreSQL) that writes the history row when `change` returned a row. */
  private withRecord(change: string, params: unknown[], record: FsmTransitionRecord): Statement {
    return {
      sql:
        `WITH changed AS (${change}) ` +
        `INSERT INTO ${this.history} (machine, handle, from_state, to_state, event, tool, principal, at) ` +
        'SELECT ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::varchar, ?::bigint FROM changed',
      params: [...params, ...recordParams(record)],
    };
  }

  private async run<T>(runner: QueryRunner, statement: Statement): Promise<Result<T>> {
    let index = 0;
    const sql = this.dialect === 'postgres' ? statement.sql.replace(/\?/g, () => `$${++index}`) : statement.sql;
    const result = await runner.query(sql, statement.params, true);
    return {
      records: result.records ?? [],
      affected: result.affected ?? result.records?.length ?? 0,
      insertId: result.raw?.insertId === undefined ? undefined : Number(result.raw.insertId),
    };
  }

  private quote(name: string): string {
    const quote = this.dialect === 'mysql' ? '`' : '"';
    return name
      .split('.')
      .map((part) => `${quote}${part}${quote}`)
      .join('.');
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
}

/**
 * `state` is one of the allowed states or a descendant of one. The prefix test compares a
 * SUBSTR with `"<state>."` rather than using LIKE: LIKE is case-insensitive in SQLite and
 * `_`/`%` would need escaping. Lengths are in code points, as the databases count them.
 */
function allowedStatesPredicate(allowedStates: readonly string[]): Statement {
  if (!allowedStates.length) return { sql: '1 = 0', params: [] };
  const prefixes = allowedStates.map((state) => `${state}.`);
  const sql = [
    `state IN (${allowedStates.map(() => '?').join(', ')})`,
    ...prefixes.map((prefix) => `SUBSTR(state, 1, ${[...prefix].length}) = ?`),
  ].join(' OR ');
  return { sql: `(${sql})`, params: [...allowedStates, ...prefixes] };
}

function recordParams(record: FsmTransitionRecord): unknown[] {
  return [
    record.machine,
    record.handle,
    record.from,
    record.to,
    record.event,
    record.tool,
    record.principal,
    Date.parse(record.at),
  ];
}

function toSnapshot(row: FsmStateRow): FsmSnapshot {
  const snapshot: FsmSnapshot = { state: row.state, updatedAt: new Date(Number(row.updated_at)).toISOString() };
  if (row.owner !== null) snapshot.owner = row.owner;
  return snapshot;
}

function isDuplicateKey(error: unknown): boolean {
  return driverErrno(error) === DUPLICATE_KEY_ERRNO;
}

/**
 * Whether InnoDB chose this transaction as a deadlock victim (and rolled it back). Under
 * REPEATABLE READ a locking read of an absent row takes a gap lock, so two transactions
 * inserting new instances into the same index gap can deadlock.
 */
export function isDeadlock(error: unknown): boolean {
  return driverErrno(error) === DEADLOCK_ERRNO;
}

function driverErrno(error: unknown): number | undefined {
  return (error as { driverError?: { errno?: number } }).driverError?.errno;
}
