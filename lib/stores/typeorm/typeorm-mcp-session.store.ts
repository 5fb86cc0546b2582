import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import type { McpSessionRecord, McpSessionStore, McpStoredEvent } from '../mcp-session-store.interface.js';
import type { FsmTransaction } from '../transactional-fsm-state-store.interface.js';
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
 * application's own database, so every process on it can serve every session. Round trips,
 * time limits and SQLite: see docs/stores.md#typeormmcpsessionstore-in-detail.
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

  /**
   * Writes the following on the transaction's own connection when the transaction is one of a
   * TypeORM store on this store's DataSource, within the transaction's time limit.
   */
  async followWithin(transaction: FsmTransaction, sessionId: string, storeKey: string): Promise<boolean> {
    const { connection, queryRunner } = transaction.manager as Partial<EntityManager>;
    if (connection !== this.dataSource || !queryRunner) return false;
    await this.sql.follow(queryRunner, sessionId, storeKey, Date.now());
    return true;
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
  countHandles(sessionId: string): Promise<number> {
    return this.read('countHandles', (runner) => this.sql.countHandles(runner, sessionId));
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
