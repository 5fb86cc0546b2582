import type { OnApplicationBootstrap } from '@nestjs/common';
import type { DataSource, QueryRunner } from 'typeorm';
import type { McpTaskChange, McpTaskCursor, McpTaskRecord, McpTaskStatus, McpTaskStore } from '../mcp-task-store.interface.js';
import { BoundedQueries } from './bounded-queries.js';
import { McpTaskSql } from './mcp-task.sql.js';
import { TransactionLimits } from './transaction-limits.js';
import { DEFAULT_MCP_TASK_TABLE, type TypeOrmMcpTaskStoreOptions } from './typeorm-mcp-task-store-options.interface.js';

/**
 * MCP tasks in the application's own database, so every process on it answers `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel`, after a restart too. One round trip per
 * operation (an update on MySQL/MariaDB: two; a creation under a cap takes a lock first), each
 * within `timeoutMs`; every query is by the task's id or bounded by a limit.
 *
 * @example
 * TypeOrmModule.forRoot({ ..., migrations: [CreateMcpTasks1766448000000], migrationsRun: true });
 * McpModule.forRootAsync({
 *   inject: [DataSource],
 *   useFactory: (dataSource: DataSource) => ({ name: 'billing', version: '1.0.0',
 *     tasks: { store: new TypeOrmMcpTaskStore(dataSource) } }),
 * });
 */
export class TypeOrmMcpTaskStore implements McpTaskStore, OnApplicationBootstrap {
  private readonly queries: BoundedQueries;
  private readonly sql: McpTaskSql;
  private readonly limits: TransactionLimits;

  constructor(
    private readonly dataSource: DataSource,
    options: TypeOrmMcpTaskStoreOptions = {},
  ) {
    this.queries = new BoundedQueries(dataSource, TypeOrmMcpTaskStore.name, options.timeoutMs);
    this.sql = new McpTaskSql(this.queries.dialect, this.queries.table(options.tableName ?? DEFAULT_MCP_TASK_TABLE));
    this.limits = new TransactionLimits(this.queries.dialect, this.queries.timeoutMs);
  }

  /**
   * Checks, when the application starts, that the table exists with every column this version
   * uses (a forgotten migration fails the bootstrap with the migration to run). Skipped while
   * the DataSource is not initialized yet.
   */
  async onApplicationBootstrap(): Promise<void> {
    if (this.dataSource.isInitialized) {
      await this.read('the schema check', (runner) => this.sql.assertSchema(runner));
    }
  }

  /**
   * One INSERT; with `maxActive`, one conditional INSERT … SELECT that no other creation for the
   * requester can come between (see `McpTaskSql.insertWithin`: PostgreSQL takes an advisory lock
   * in a transaction, MySQL/MariaDB a named lock, SQLite the write lock every write takes).
   */
  async create(record: McpTaskRecord, maxActive?: number): Promise<boolean> {
    if (maxActive === undefined) {
      await this.write('create', (runner) => this.sql.insert(runner, record));
      return true;
    }
    const lockWaitSeconds = Math.ceil(this.queries.timeoutMs / 1000);
    return this.queries.run('create', (runner) => this.sql.insertWithin(runner, record, maxActive, lockWaitSeconds), {
      transaction: this.sql.dialect === 'postgres' ? this.limits : undefined,
    });
  }

  /** @inheritdoc */
  find(taskId: string): Promise<McpTaskRecord | undefined> {
    return this.read('find', (runner) => this.sql.find(runner, taskId));
  }

  /** @inheritdoc */
  async update(taskId: string, change: McpTaskChange, from: readonly McpTaskStatus[], now: number): Promise<McpTaskRecord | undefined> {
    if (from.length === 0) return undefined;
    return this.write('update', (runner) => this.sql.update(runner, taskId, change, from, now));
  }

  /** @inheritdoc */
  async list(requester: string, now: number, limit: number, after?: McpTaskCursor): Promise<McpTaskRecord[]> {
    if (limit <= 0) return [];
    return this.read('list', (runner) => this.sql.list(runner, requester, now, Math.floor(limit), after));
  }

  /** @inheritdoc */
  async orphans(now: number, limit: number): Promise<McpTaskRecord[]> {
    if (limit <= 0) return [];
    return this.read('orphans', (runner) => this.sql.orphans(runner, now, Math.floor(limit)));
  }

  /** @inheritdoc */
  async sweep(now: number, limit: number): Promise<number> {
    if (limit <= 0) return 0;
    return this.write('sweep', (runner) => this.sql.sweep(runner, now, Math.floor(limit)));
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
