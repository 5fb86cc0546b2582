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

const WAITING_INDEX_MIGRATION_NAME = 'AddMcpFsmWaitingIndex1767139200000';

/**
 * A TypeORM migration class that adds the index the list of waiting requests reads by
 * (`listWaiting`: the instances of one machine in its waiting states, newest first) to the state
 * table in `options`: `(machine, state)` (within MySQL's 3072-byte key limit), so a list reads the
 * machine's waiting rows alone and sorts those; `down` drops it. Without it the list still works,
 * and the database reads the machine's rows newest first until it found a page of waiting ones. Its name is fixed (`AddMcpFsmWaitingIndex1767139200000`): register one per
 * DataSource, after {@link createWorkflowApprovalMigration} with the same table name.
 *
 * @example
 * new DataSource({ ..., migrations: [..., createWorkflowWaitingIndexMigration({ tableName: 'billing_fsm_state' })] });
 */
export function createWorkflowWaitingIndexMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'tableName'> = {},
): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE, createWorkflowWaitingIndexMigration.name);

  return schemaMigration(WAITING_INDEX_MIGRATION_NAME, (columns) => ({
    indices: [{ table: stateTable, index: columns.index(stateTable, 'machine_state', ['machine', 'state']) }],
  }));
}

/** Adds the waiting requests' list index to the state table with the default name (`mcp_fsm_state`). */
export class AddMcpFsmWaitingIndex1767139200000 extends createWorkflowWaitingIndexMigration() {}
