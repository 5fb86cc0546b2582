import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import { DEFAULT_WORKFLOW_TIMER_TABLE, type TypeOrmFsmStateStoreOptions } from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpFsmTimer1766534400000';

/**
 * A TypeORM migration class that creates the table of durable timers (the deadlines of
 * machines with `after` transitions) for the table name in `options`: one row per instance
 * handle and timer id (the primary key), with the index on `due_at` every poll of the deadline
 * scheduler reads; `down` drops it. Existing tables and rows are not touched (0.3 instances
 * simply have no timers). Built with TypeORM's `Table`, so it runs on PostgreSQL,
 * MySQL/MariaDB and SQLite. Its name is fixed (`CreateMcpFsmTimer1766534400000`): register one
 * per DataSource, after {@link createWorkflowStateMigration}.
 *
 * @example
 * new DataSource({ ..., migrations: [..., createWorkflowTimerMigration({ timerTableName: 'billing_fsm_timer' })] });
 */
export function createWorkflowTimerMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'timerTableName'> = {},
): new () => MigrationInterface {
  const table = assertFsmTableName(options.timerTableName ?? DEFAULT_WORKFLOW_TIMER_TABLE, createWorkflowTimerMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: table,
        columns: [
          { ...columns.text('handle', 255), isPrimary: true },
          { ...columns.text('timer_id', 255), isPrimary: true },
          columns.text('machine', 255),
          columns.text('event', 255),
          columns.epochMs('due_at'),
          columns.text('claim_token', 64, true),
          { name: 'attempts', type: 'integer', default: 0 },
        ],
        indices: [columns.index(table, 'due_at', ['due_at'])],
      },
    ],
  }));
}

/** Creates the timer table with the default name (`mcp_fsm_timer`). */
export class CreateMcpFsmTimer1766534400000 extends createWorkflowTimerMigration() {}
