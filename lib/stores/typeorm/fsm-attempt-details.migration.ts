import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import { DEFAULT_WORKFLOW_ATTEMPT_TABLE, type TypeOrmFsmStateStoreOptions } from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'AddMcpFsmAttemptDetails1766880000000';

/**
 * A TypeORM migration class that adds what an attempt row tells of the refused call to the
 * attempt table in `options`: the nullable `message` (the refusal's message as the caller read
 * it) and `args` (the call's arguments, cut, as JSON text) columns, TEXT (LONGTEXT on
 * MySQL/MariaDB); `down` drops both. Rows written before it ran keep working: they load without
 * a message and without arguments. Its name is fixed (`AddMcpFsmAttemptDetails1766880000000`):
 * register one per DataSource, after `createWorkflowAttemptMigration` with the same table name.
 *
 * @example
 * new DataSource({ ..., migrations: [
 *   createWorkflowAttemptMigration({ attemptTableName: 'billing_fsm_attempt' }),
 *   createWorkflowAttemptDetailsMigration({ attemptTableName: 'billing_fsm_attempt' }),
 * ] });
 */
export function createWorkflowAttemptDetailsMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'attemptTableName'> = {},
): new () => MigrationInterface {
  const table = assertFsmTableName(options.attemptTableName ?? DEFAULT_WORKFLOW_ATTEMPT_TABLE, createWorkflowAttemptDetailsMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    columns: [
      { table, column: columns.longText('message', true) },
      { table, column: columns.longText('args', true) },
    ],
  }));
}

/** Adds the `message` and `args` columns to the attempt table with the default name (`mcp_fsm_attempt`). */
export class AddMcpFsmAttemptDetails1766880000000 extends createWorkflowAttemptDetailsMigration() {}
