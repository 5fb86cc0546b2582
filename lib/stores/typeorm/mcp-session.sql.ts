import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { QueryRunner } from 'typeorm';
import { McpSessionRecordError } from '../mcp-session-record.error.js';
import type { McpSessionRecord, McpStoredEvent } from '../mcp-session-store.interface.js';
import { sessionHandleTableNotReady, sessionRecordUnreadable, sessionStoreSchemaNotReady } from './session-store.messages.js';
import { assertColumns, type FsmSqlDialect, quoteTableName, runSql, type SqlResult, type SqlStatement } from './typeorm-sql.js';

/** One session row, as the drivers return it (pg and mysql2 return BIGINT as a string). */
interface SessionRow {
  id: string;
  server_id: string;
  initialize: string;
  principal: string | null;
  created_at: string | number;
  last_seen_at: string | number;
}

/** One event row (the id is BIGINT, or INTEGER on SQLite). */
interface EventRow {
  id: string | number;
  message: string;
}

/**
 * The SQL of the session and event tables in one dialect. Every method is one statement (one
 * round trip) unless its JSDoc says otherwise; the caller chooses the `QueryRunner` and
 * therefore the transaction.
 */
export class McpSessionSql {
  private readonly sessions: string;
  private readonly events: string;
  private readonly handles: string;
  private readonly sessionColumns = 'id, server_id, initialize, principal, created_at, last_seen_at';

  /** `tableName`, `eventTableName` and `handleTableName` as `BoundedQueries.table` returns them. */
  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
    eventTableName: string,
    handleTableName: string,
  ) {
    this.sessions = quoteTableName(dialect, tableName);
    this.events = quoteTableName(dialect, eventTableName);
    this.handles = quoteTableName(dialect, handleTableName);
  }

  /**
   * Throws, naming the migration to run, when a table is missing or lacks a column this version
   * uses: the session and event tables (two statements, each table set with its own migration).
   */
  async assertSchema(runner: QueryRunner): Promise<void> {
    const sessionColumns = this.sessionColumns.split(', ').map((column) => `s.${column}`);
    const eventColumns = ['id', 'session_id', 'message', 'created_at'].map((column) => `e.${column}`);
    await assertColumns(
      runner,
      this.dialect,
      { columns: [...sessionColumns, ...eventColumns].join(', '), from: `${this.sessions} s CROSS JOIN ${this.events} e` },
      (error) => sessionStoreSchemaNotReady([this.sessions, this.events], error),
    );
    await assertColumns(runner, this.dialect, { columns: 'session_id, store_key, created_at', from: this.handles }, (error) =>
      sessionHandleTableNotReady(this.handles, error),
    );
  }

  /** Inserts a session row. */
  async insert(runner: QueryRunner, record: McpSessionRecord): Promise<void> {
    await this.run(runner, {
      sql: `INSERT INTO ${this.sessions} (${this.sessionColumns}) VALUES (?, ?, ?, ?, ?, ?)`,
      params: [
        record.id,
        record.serverId,
        JSON.stringify(record.initialize),
        record.principal ?? null,
        record.createdAt,
        record.lastSeenAt,
      ],
    });
  }

  /** The record of one session. */
  async find(runner: QueryRunner, id: string): Promise<McpSessionRecord | undefined> {
    const { records } = await this.run<SessionRow>(runner, {
      sql: `SELECT ${this.sessionColumns} FROM ${this.sessions} WHERE id = ?`,
      params: [id],
    });
    return records[0] && toRecord(records[0]);
  }

  /** Sets `last_seen_at`; `false` when no row matched (the driver counts matched rows on MySQL: mysql2's `FOUND_ROWS`). */
  async touch(runner: QueryRunner, id: string, at: number): Promise<boolean> {
    const { affected } = await this.run(runner, {
      sql: `UPDATE ${this.sessions} SET last_seen_at = ? WHERE id = ?`,
      params: [at, id],
    });
    return affected === 1;
  }

  /**
   * Deletes a session, its events and its followed handles; `false` when the session did not
   * exist. PostgreSQL: one data-modifying CTE; MySQL/MariaDB: one multi-table DELETE (events and
   * handles of a session that does not exist are left to `pruneEvents` and the session's end);
   * SQLite: three statements, which the caller runs in one turn of the write queue.
   */
  async delete(runner: QueryRunner, id: string): Promise<boolean> {
    switch (this.dialect) {
      case 'postgres': {
        const { records } = await this.run(runner, {
          sql:
            `WITH ended AS (DELETE FROM ${this.sessions} WHERE id = ? RETURNING id), dropped AS (DELETE FROM ${this.events} WHERE session_id = ?), ` +
            `unfollowed AS (DELETE FROM ${this.handles} WHERE session_id = ?) SELECT id FROM ended`,
          params: [id, id, id],
        });
        return records.length === 1;
      }
      case 'mysql': {
        const { affected } = await this.run(runner, { sql: `${this.deleteWithDependents()} WHERE s.id = ?`, params: [id] });
        return affected > 0;
      }
      case 'sqlite': {
        const { affected } = await this.run(runner, { sql: `DELETE FROM ${this.sessions} WHERE id = ?`, params: [id] });
        await this.run(runner, { sql: `DELETE FROM ${this.events} WHERE session_id = ?`, params: [id] });
        await this.run(runner, { sql: `DELETE FROM ${this.handles} WHERE session_id = ?`, params: [id] });
        return affected === 1;
      }
    }
  }

  /**
   * Deletes up to `limit` sessions of `serverId` last seen before `cutoff`, with their events
   * and followed handles, and returns the ids of the sessions this call deleted (never one that
   * a concurrent call deleted, nor one touched meanwhile).
   *
   * PostgreSQL: one statement, a data-modifying CTE over `SELECT … FOR UPDATE SKIP LOCKED`.
   * SQLite: a `DELETE … RETURNING` (atomic: SQLite has one writer at a time), then a DELETE of
   * the ended sessions' events and one of their handles (both skipped when none ended). MySQL/MariaDB, which lack `DELETE …
   * RETURNING`: a plain SELECT of the candidates, then one multi-table DELETE per candidate that
   * checks the condition again; a candidate is this call's when its DELETE removed it. (A
   * locking SELECT and one DELETE in a transaction would take gap locks on the index that
   * `create` inserts into, and deadlock with it.)
   */
  expire(runner: QueryRunner, serverId: string, cutoff: number, limit: number): Promise<string[]> {
    return this.endWhere(runner, (alias) => `${alias}last_seen_at < ?`, serverId, cutoff, limit);
  }

  /**
   * Deletes up to `limit` sessions of `serverId` created before `cutoff` and never used since
   * (`last_seen_at` still equals `created_at`), with their events, and returns their ids, as
   * `expire` does (the same statements; the range on `last_seen_at` keeps to its index).
   */
  expireUnused(runner: QueryRunner, serverId: string, cutoff: number, limit: number): Promise<string[]> {
    return this.endWhere(
      runner,
      (alias) => `${alias}last_seen_at < ? AND ${alias}last_seen_at = ${alias}created_at`,
      serverId,
      cutoff,
      limit,
    );
  }

  /** The statements of `expire` for sessions of `serverId` that meet `condition` (one `?`, bound to `cutoff`), columns prefixed by `alias`. */
  private async endWhere(
    runner: QueryRunner,
    condition: (alias: string) => string,
    serverId: string,
    cutoff: number,
    limit: number,
  ): Promise<string[]> {
    const candidates = `SELECT id FROM ${this.sessions} WHERE server_id = ? AND ${condition('')} LIMIT ?`;
    const params = [serverId, cutoff, limit];
    switch (this.dialect) {
      case 'postgres': {
        const { records } = await this.run<{ id: string }>(runner, {
          sql:
            `WITH ended AS (DELETE FROM ${this.sessions} WHERE id IN (${candidates} FOR UPDATE SKIP LOCKED) RETURNING id), ` +
            `dropped AS (DELETE FROM ${this.events} WHERE session_id IN (SELECT id FROM ended)), ` +
            `unfollowed AS (DELETE FROM ${this.handles} WHERE session_id IN (SELECT id FROM ended)) SELECT id FROM ended`,
          params,
        });
        return records.map((row) => row.id);
      }
      case 'sqlite': {
        const { records } = await this.run<{ id: string }>(runner, {
          sql: `DELETE FROM ${this.sessions} WHERE id IN (${candidates}) RETURNING id`,
          params,
        });
        const ids = records.map((row) => row.id);
        if (ids.length) {
          for (const table of [this.events, this.handles]) {
            await this.run(runner, {
              sql: `DELETE FROM ${table} WHERE session_id IN (SELECT value FROM json_each(?))`,
              params: [JSON.stringify(ids)],
            });
          }
        }
        return ids;
      }
      case 'mysql': {
        const { records } = await this.run<{ id: string }>(runner, { sql: candidates, params });
        const ended: string[] = [];
        for (const { id } of records) {
          const { affected } = await this.run(runner, {
            sql: `${this.deleteWithDependents()} WHERE s.id = ? AND s.server_id = ? AND ${condition('s.')}`,
            params: [id, serverId, cutoff],
          });
          if (affected > 0) ended.push(id);
        }
        return ended;
      }
    }
  }

  /** Inserts an event and returns its id (`INSERT … RETURNING`; MySQL/MariaDB: the OK packet's insert id). */
  async appendEvent(runner: QueryRunner, sessionId: string, message: JSONRPCMessage, at: number): Promise<string> {
    const insert = `INSERT INTO ${this.events} (session_id, message, created_at) VALUES (?, ?, ?)`;
    const params = [sessionId, JSON.stringify(message), at];
    if (this.dialect === 'mysql') {
      return String((await this.run(runner, { sql: insert, params })).insertId);
    }
    const { records } = await this.run<{ id: string | number }>(runner, { sql: `${insert} RETURNING id`, params });
    return String(records[0].id);
  }

  /**
   * The session's events from event `after` on, in one SELECT: `undefined` when the first is not
   * `after` itself (not an event of this session, or pruned), else the events that follow it.
   */
  async eventsAfter(runner: QueryRunner, sessionId: string, after: number): Promise<McpStoredEvent[] | undefined> {
    const { records } = await this.run<EventRow>(runner, {
      sql: `SELECT id, message FROM ${this.events} WHERE session_id = ? AND id >= ? ORDER BY id`,
      params: [sessionId, after],
    });
    if (records.length === 0 || Number(records[0].id) !== after) return undefined;
    return records.slice(1).map((row) => ({ id: String(row.id), message: JSON.parse(row.message) }));
  }

  /**
   * Deletes up to `limit` events kept before `cutoff`; returns how many. MySQL/MariaDB take
   * `DELETE … ORDER BY … LIMIT` (no LIMIT in an IN subquery), ordered by a unique key so that
   * the statement is deterministic for statement-based replication.
   */
  async pruneEvents(runner: QueryRunner, cutoff: number, limit: number): Promise<number> {
    const sql =
      this.dialect === 'mysql'
        ? `DELETE FROM ${this.events} WHERE created_at < ? ORDER BY created_at, id LIMIT ?`
        : `DELETE FROM ${this.events} WHERE id IN (SELECT id FROM ${this.events} WHERE created_at < ? LIMIT ?)`;
    return (await this.run(runner, { sql, params: [cutoff, limit] })).affected;
  }

  /**
   * Records that a session follows instance `storeKey`, when the session exists and does not
   * already follow it: one `INSERT … SELECT` guarded by the session's row.
   */
  async follow(runner: QueryRunner, sessionId: string, storeKey: string, at: number): Promise<void> {
    // PostgreSQL does not infer the types of parameters in a SELECT list.
    const values = { postgres: '?::varchar, ?::varchar, ?::bigint', mysql: '?, ?, ? FROM DUAL', sqlite: '?, ?, ?' }[this.dialect];
    const select = `SELECT ${values} WHERE EXISTS (SELECT 1 FROM ${this.sessions} WHERE id = ?)`;
    const columns = `${this.handles} (session_id, store_key, created_at)`;
    const sql =
      this.dialect === 'postgres'
        ? `INSERT INTO ${columns} ${select} ON CONFLICT DO NOTHING`
        : this.dialect === 'sqlite'
          ? `INSERT OR IGNORE INTO ${columns} ${select}`
          : `INSERT INTO ${columns} ${select} ON DUPLICATE KEY UPDATE session_id = session_id`;
    await this.run(runner, { sql, params: [sessionId, storeKey, at, sessionId] });
  }

  /** Records that a session no longer follows instance `storeKey`. */
  async unfollow(runner: QueryRunner, sessionId: string, storeKey: string): Promise<void> {
    await this.run(runner, { sql: `DELETE FROM ${this.handles} WHERE session_id = ? AND store_key = ?`, params: [sessionId, storeKey] });
  }

  /** The store keys a session follows, in the order it started following them. */
  async handlesOf(runner: QueryRunner, sessionId: string): Promise<string[]> {
    const { records } = await this.run<{ store_key: string }>(runner, {
      sql: `SELECT store_key FROM ${this.handles} WHERE session_id = ? ORDER BY created_at, store_key`,
      params: [sessionId],
    });
    return records.map((row) => row.store_key);
  }

  /** How many instances the session follows (an index range count: no rows are read back). */
  async countHandles(runner: QueryRunner, sessionId: string): Promise<number> {
    const { records } = await this.run<{ n: string | number }>(runner, {
      sql: `SELECT COUNT(*) AS n FROM ${this.handles} WHERE session_id = ?`,
      params: [sessionId],
    });
    return Number(records[0]?.n ?? 0);
  }

  /** At most `limit` sessions that follow instance `storeKey`, earliest followers first (an index range scan). */
  async followers(runner: QueryRunner, storeKey: string, limit: number): Promise<string[]> {
    const { records } = await this.run<{ session_id: string }>(runner, {
      sql: `SELECT session_id FROM ${this.handles} WHERE store_key = ? ORDER BY created_at, session_id LIMIT ?`,
      params: [storeKey, limit],
    });
    return records.map((row) => row.session_id);
  }

  /** MySQL/MariaDB's multi-table DELETE of sessions with their events and handles; the caller adds the WHERE clause on `s`. */
  private deleteWithDependents(): string {
    return `DELETE s, e, h FROM ${this.sessions} s LEFT JOIN ${this.events} e ON e.session_id = s.id LEFT JOIN ${this.handles} h ON h.session_id = s.id`;
  }

  private run<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlResult<T>> {
    return runSql<T>(runner, this.dialect, statement);
  }
}

function toRecord(row: SessionRow): McpSessionRecord {
  let initialize: McpSessionRecord['initialize'];
  try {
    initialize = JSON.parse(row.initialize);
  } catch (error) {
    throw new McpSessionRecordError(sessionRecordUnreadable('initialize', error), { cause: error });
  }
  const record: McpSessionRecord = {
    id: row.id,
    serverId: row.server_id,
    initialize,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
  };
  if (row.principal !== null) record.principal = row.principal;
  return record;
}
