import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import {
  DEFAULT_WORKFLOW_STATE_TABLE,
  DEFAULT_WORKFLOW_TRANSITION_TABLE,
  type TypeOrmFsmStateStoreOptions,
} from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'AddMcpFsmApprovals1766102400000';

/**
 * A TypeORM migration class that adds what second-person approvals (`@McpApproval`) store: the
 * nullable `waiting` column of the state table (the request waiting for approval, JSON text) and
 * the nullable `approval` column of the history table (how a request was decided, JSON text);
 * `down` drops both. Rows stored before it ran keep working: NULL loads as nothing waiting, and
 * as a row that decided nothing. Built with TypeORM's `TableColumn`, so it runs on PostgreSQL,
 * MySQL/MariaDB and SQLite. Its name is fixed (`AddMcpFsmApprovals1766102400000`): register one
 * per DataSource, after {@link createWorkflowContextMigration} with the same table names.
 *
 * @example
 * new DataSource({ ..., migrations: [..., createWorkflowApprovalMigration({ tableName: 'billing_fsm_state' })] });
 */
export function createWorkflowApprovalMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'tableName' | 'historyTableName'> = {},
): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE, createWorkflowApprovalMigration.name);
  const historyTable = assertFsmTableName(
    options.historyTableName ?? DEFAULT_WORKFLOW_TRANSITION_TABLE,
    createWorkflowApprovalMigration.name,
  );

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    columns: [
      { table: stateTable, column: columns.json('waiting', true) },
      { table: historyTable, column: columns.json('approval', true) },
    ],
  }));
}

/** Adds the approval columns to the store's tables with the default names (`mcp_fsm_state`, `mcp_fsm_transition`). */
export class AddMcpFsmApprovals1766102400000 extends createWorkflowApprovalMigration() {}
