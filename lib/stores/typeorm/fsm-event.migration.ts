import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import { DEFAULT_WORKFLOW_EVENT_TABLE, type TypeOrmFsmStateStoreOptions } from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpFsmEvent1766620800000';

/**
 * A TypeORM migration class that creates the receipt table of outside events
 * (`McpWorkflowService.send` with an idempotency key) for the table name in `options`: one row
 * per instance handle and idempotency key (the primary key, which makes an event apply once per
 * key); `down` drops it. Existing tables and rows are not touched. Built with TypeORM's `Table`,
 * so it runs on PostgreSQL, MySQL/MariaDB and SQLite. Its name is fixed
 * (`CreateMcpFsmEvent1766620800000`): register one per DataSource, after
 * {@link createWorkflowStateMigration}.
 *
 * @example
 * new DataSource({ ..., migrations: [..., createWorkflowEventMigration({ eventTableName: 'billing_fsm_event' })] });
 */
export function createWorkflowEventMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'eventTableName'> = {},
): new () => MigrationInterface {
  const table = assertFsmTableName(options.eventTableName ?? DEFAULT_WORKFLOW_EVENT_TABLE, createWorkflowEventMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: table,
        columns: [
          { ...columns.text('handle', 255), isPrimary: true },
          { ...columns.text('idempotency_key', 255), isPrimary: true },
          columns.text('machine', 255),
          columns.text('event', 255),
          columns.text('actor', 255),
          columns.epochMs('applied_at'),
        ],
      },
    ],
  }));
}

/** Creates the receipt table of outside events with the default name (`mcp_fsm_event`). */
export class CreateMcpFsmEvent1766620800000 extends createWorkflowEventMigration() {}
