import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import { DEFAULT_MCP_TASK_TABLE, type TypeOrmMcpTaskStoreOptions } from './typeorm-mcp-task-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpTasks1766448000000';

/**
 * A TypeORM migration class that creates the table of `TypeOrmMcpTaskStore` (one row per MCP
 * task: its requester, call, status, result, expiry and lease), with an index by requester for
 * `tasks/list`, one by expiry for the sweep and one by lease for tasks whose process stopped;
 * `down` drops it. Built with TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL,
 * MySQL/MariaDB and SQLite. Its name is fixed
 * (`CreateMcpTasks1766448000000`): register one per DataSource.
 *
 * @example
 * new DataSource({ ..., migrations: [createMcpTaskMigration({ tableName: 'billing_mcp_task' })] });
 */
export function createMcpTaskMigration(options: Pick<TypeOrmMcpTaskStoreOptions, 'tableName'> = {}): new () => MigrationInterface {
  const table = assertFsmTableName(options.tableName ?? DEFAULT_MCP_TASK_TABLE, createMcpTaskMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: table,
        columns: [
          { ...columns.text('task_id', 64), isPrimary: true },
          columns.text('requester', 255),
          columns.text('session_id', 64, true),
          columns.text('server_id', 255),
          columns.json('request'),
          columns.text('status', 16),
          columns.json('status_message', true),
          columns.json('result', true),
          columns.json('error', true),
          columns.json('input', true),
          columns.epochMs('ttl_ms'),
          columns.epochMs('poll_interval_ms'),
          columns.epochMs('created_at'),
          columns.epochMs('updated_at'),
          columns.epochMs('expires_at'),
          columns.epochMs('lease_until', true),
        ],
        indices: [
          columns.index(table, 'requester', ['requester', 'created_at', 'task_id']),
          columns.index(table, 'expires_at', ['expires_at']),
          columns.index(table, 'lease', ['status', 'lease_until']),
        ],
      },
    ],
  }));
}

/** Creates the task store's table with the default name (`mcp_task`). */
export class CreateMcpTasks1766448000000 extends createMcpTaskMigration() {}
