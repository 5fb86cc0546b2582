import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import { DEFAULT_WORKFLOW_ATTEMPT_TABLE, type TypeOrmFsmStateStoreOptions } from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpFsmAttempt1765843200000';

/**
 * A TypeORM migration class that creates the table of refused and declined calls (the store's
 * `attempts` option) for the table name in `options`, with its `(handle, id)` index; `down`
 * drops it. Existing tables and rows are not touched. Built with TypeORM's `Table`, so it runs
 * on PostgreSQL, MySQL/MariaDB and SQLite. Its name is fixed (`CreateMcpFsmAttempt1765843200000`):
 * register one per DataSource, after {@link createWorkflowStateMigration}.
 *
 * @example
 * new DataSource({ ..., migrations: [..., createWorkflowAttemptMigration({ attemptTableName: 'billing_fsm_attempt' })] });
 */
export function createWorkflowAttemptMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'attemptTableName'> = {},
): new () => MigrationInterface {
  const table = assertFsmTableName(options.attemptTableName ?? DEFAULT_WORKFLOW_ATTEMPT_TABLE, createWorkflowAttemptMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: table,
        columns: [
          columns.id(),
          columns.text('machine', 255),
          columns.text('handle', 255),
          columns.text('tool', 255),
          columns.text('code', 64),
          columns.text('principal', 255, true),
          columns.epochMs('at'),
        ],
        indices: [columns.index(table, 'handle_id', ['handle', 'id'])],
      },
    ],
  }));
}

/** Creates the attempt table with the default name (`mcp_fsm_attempt`). */
export class CreateMcpFsmAttempt1765843200000 extends createWorkflowAttemptMigration() {}
