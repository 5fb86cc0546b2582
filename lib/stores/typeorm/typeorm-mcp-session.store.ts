import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import type { McpSessionRecord, McpSessionStore, McpStoredEvent } from '../mcp-session-store.interface.js';
import { BoundedQueries } from './bounded-queries.js';
import { McpSessionSql } from './mcp-session.sql.js';
import {
  DEFAULT_MCP_SESSION_EVENT_TABLE,
  DEFAULT_MCP_SESSION_HANDLE_TABLE,
  DEFAULT_MCP_SESSION_TABLE,
  type TypeOrmMcpSessionStoreOptions,
} from './typeorm-mcp-session-store-options.interface.js';

/** An event id as `appendEvent` returns them: a positive integer, written without a sign or leading zeros. */
const EVENT_ID = /^[1-9][0-9]*$/;

/**
 * Stateful HTTP sessions, their kept GET-stream messages and the handles they follow in the
 * application's own database, through its TypeORM `DataSource` (plain, or injected from
 * `@nestjs/typeorm`): PostgreSQL, MySQL/MariaDB or better-sqlite3. Every process on the
 * database can serve every session. The tables come from the shipped migrations
 * `CreateMcpSessions1764633600000` and `CreateMcpSessionHandles1764806400000` (or
 * `createMcpSessionMigration(options)` and `createMcpSessionHandleMigration(options)`);
 * `synchronize` is not needed. Initialize params and messages are stored as JSON text. The
 * store never initializes or destroys the DataSource, and database errors are thrown, never
 * swallowed.
 *
 * Round trips per operation: `create`, `find`, `touch`, `appendEvent`, `eventsAfter`,
 * `pruneEvents`, `follow`, `unfollow`, `handles`, `followers`: 1. `delete`: 1 (PostgreSQL:
 * data-modifying CTE; MySQL/MariaDB: multi-table DELETE), 3 on SQLite. `expire` and `expireUnused`: 1 on
 * PostgreSQL (data-modifying CTE over `FOR UPDATE SKIP LOCKED`); 3 on SQLite (1 when no
 * session expired); on MySQL/MariaDB, which lack `DELETE … RETURNING`, 1 SELECT of at most
 * `limit` candidates plus 1 DELETE per candidate (see `McpSessionSql.expire`). No operation
 * opens a transaction. Event pruning compares with this
 * process's clock (`Date.now()`), so processes sharing a database need synchronised clocks.
 *
 * Every operation is bounded by `timeoutMs` (default 5 s; see the option): an operation that
 * runs out of time, waiting for a connection included, fails with an error naming it and the
 * limit, and its connection is closed rather than returned to the pool, so a partitioned
 * database fails the session's requests in bounded time.
 *
 * On better-sqlite3, TypeORM runs every query of a DataSource on one shared connection: the
 * store's writes wait their turn in the queue the workflow store uses, so they never run
 * inside another store's open transaction, and `timeoutMs` bounds that wait (queries run
 * synchronously and cannot be interrupted). Reads run at once.
 *
 * @example
 * TypeOrmModule.forRoot({ ..., migrations: [CreateMcpSessions1764633600000, CreateMcpSessionHandles1764806400000], migrationsRun: true });
 * McpModule.forRootAsync({
 *   inject: [DataSource],
 *   useFactory: (dataSource: DataSource) => ({ name: 'billing', version: '1.0.0',
 *     sessions: { store: new TypeOrmMcpSessionStore(dataSource) } }),
 * });
 */
export class TypeOrmMcpSessionStore implements McpSessionStore, OnApplicationBootstrap {
  private readonly queries: BoundedQueries;
  private readonly sql: McpSessionSql;

  constructor(
    private readonly dataSource: DataSource,
    options: TypeOrmMcpSessionStoreOptions = {},
  ) {
    const queries = new BoundedQueries(dataSource, TypeOrmMcpSessionStore.name, options.timeoutMs);
    this.queries = queries;
    this.sql = new McpSessionSql(
      queries.dialect,
      queries.table(options.tableName ?? DEFAULT_MCP_SESSION_TABLE),
      queries.table(options.eventTableName ?? DEFAULT_MCP_SESSION_EVENT_TABLE),
      queries.table(options.handleTableName ?? DEFAULT_MCP_SESSION_HANDLE_TABLE),
    );
  }

  /**
   * Checks, when the application starts, that the three tables exist with every column this
   * version uses (a forgotten migration fails the bootstrap with the migration to run, instead
   * of every stateful `initialize` failing). Skipped while the DataSource is not initialized yet.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.read('the schema check', (runner) => this.sql.assertSchema(runner));
    }
  }

  /** @inheritdoc */
  create(record: McpSessionRecord): Promise<void> {
    return this.write('create', (runner) => this.sql.insert(runner, record));
  }

  /** @inheritdoc */
  find(id: string): Promise<McpSessionRecord | undefined> {
    return this.read('find', (runner) => this.sql.find(runner, id));
  }

  /** One UPDATE; its affected-row count tells whether the session still exists. */
  touch(id: string, at: number): Promise<boolean> {
    return this.write('touch', (runner) => this.sql.touch(runner, id, at));
  }

  /** @inheritdoc */
  delete(id: string): Promise<boolean> {
    return this.write('delete', (runner) => this.sql.delete(runner, id));
  }

  /** @inheritdoc */
  async expire(serverId: string, cutoff: number, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    return this.write('expire', (runner) => this.sql.expire(runner, serverId, cutoff, limit));
  }

  /** @inheritdoc */
  async expireUnused(serverId: string, cutoff: number, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    return this.write('expireUnused', (runner) => this.sql.expireUnused(runner, serverId, cutoff, limit));
  }

  /** @inheritdoc */
  appendEvent(sessionId: string, message: JSONRPCMessage): Promise<string> {
    return this.write('appendEvent', (runner) => this.sql.appendEvent(runner, sessionId, message, Date.now()));
  }

  /** @inheritdoc */
  async eventsAfter(sessionId: string, eventId: string): Promise<McpStoredEvent[] | undefined> {
    const after = Number(eventId);
    if (!EVENT_ID.test(eventId) || !Number.isSafeInteger(after)) return undefined;
    return this.read('eventsAfter', (runner) => this.sql.eventsAfter(runner, sessionId, after));
  }

  /** @inheritdoc */
  async pruneEvents(cutoff: number, limit: number): Promise<number> {
    if (limit <= 0) return 0;
    return this.write('pruneEvents', (runner) => this.sql.pruneEvents(runner, cutoff, limit));
  }

  /** @inheritdoc */
  follow(sessionId: string, storeKey: string): Promise<void> {
    return this.write('follow', (runner) => this.sql.follow(runner, sessionId, storeKey, Date.now()));
  }

  /** @inheritdoc */
  unfollow(sessionId: string, storeKey: string): Promise<void> {
    return this.write('unfollow', (runner) => this.sql.unfollow(runner, sessionId, storeKey));
  }

  /** @inheritdoc */
  handles(sessionId: string): Promise<string[]> {
    return this.read('handles', (runner) => this.sql.handlesOf(runner, sessionId));
  }

  /** @inheritdoc */
  async followers(storeKey: string, limit: number): Promise<string[]> {
    if (limit <= 0) return [];
    // SQL's LIMIT takes an integer: no bound (`Infinity`) reads every follower.
    const rows = Number.isFinite(limit) ? Math.floor(limit) : Number.MAX_SAFE_INTEGER;
    return this.read('followers', (runner) => this.sql.followers(runner, storeKey, rows));
  }

  /** One read within `timeoutMs`; on better-sqlite3 it runs at once, outside the write queue. */
  private read<T>(operation: string, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    return this.queries.run(operation, work, { outsideTurn: true });
  }

  /** One write within `timeoutMs`; on better-sqlite3 in its turn on the shared connection. */
  private write<T>(operation: string, work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    return this.queries.run(operation, work);
  }
}
