import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import {
  DEFAULT_WORKFLOW_STATE_TABLE,
  DEFAULT_WORKFLOW_TRANSITION_TABLE,
  type TypeOrmFsmStateStoreOptions,
} from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpFsmState1764460800000';
const CONTEXT_MIGRATION_NAME = 'AddMcpFsmContext1764547200000';
const LIST_MIGRATION_NAME = 'AddMcpFsmListIndexes1764892800000';

/**
 * A TypeORM migration class that creates the store's tables (instance states, transition
 * history) and their indexes, for the table names in `options`; `down` drops both. Built with
 * TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite. Its
 * name is fixed (`CreateMcpFsmState1764460800000`): register one per DataSource, followed by
 * {@link createWorkflowContextMigration} (the store needs both).
 *
 * @example
 * new DataSource({ ..., migrations: [createWorkflowStateMigration({ tableName: 'billing_fsm_state' })] });
 */
export function createWorkflowStateMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'tableName' | 'historyTableName'> = {},
): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE, createWorkflowStateMigration.name);
  const historyTable = assertFsmTableName(options.historyTableName ?? DEFAULT_WORKFLOW_TRANSITION_TABLE, createWorkflowStateMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: stateTable,
        columns: [
          { ...columns.text('handle', 255), isPrimary: true },
          columns.text('machine', 255),
          columns.text('state', 512),
          columns.text('owner', 255, true),
          columns.text('lease_token', 64, true),
          columns.epochMs('lease_until', true),
          columns.epochMs('created_at'),
          columns.epochMs('updated_at'),
        ],
        indices: [columns.index(stateTable, 'machine', ['machine'])],
      },
      {
        name: historyTable,
        columns: [
          columns.id(),
          columns.text('machine', 255),
          columns.text('handle', 255),
          columns.text('from_state', 512, true),
          columns.text('to_state', 512),
          columns.text('event', 255, true),
          columns.text('tool', 255),
          columns.text('principal', 255, true),
          columns.epochMs('at'),
        ],
        indices: [columns.index(historyTable, 'handle_at', ['handle', 'at'])],
      },
    ],
  }));
}

/** Creates the store's tables with the default names (`mcp_fsm_state`, `mcp_fsm_transition`). */
export class CreateMcpFsmState1764460800000 extends createWorkflowStateMigration() {}

/**
 * A TypeORM migration class that adds the nullable `context` column (the machine's XState
 * context as JSON text; TEXT, LONGTEXT on MySQL/MariaDB) to the state table in `options`;
 * `down` drops it. Rows stored before it ran keep working: their context is NULL, which loads as none.
 * Built with TypeORM's `TableColumn`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite
 * (where TypeORM rebuilds the table, keeping its rows). Its name is fixed
 * (`AddMcpFsmContext1764547200000`): register one per DataSource, after
 * {@link createWorkflowStateMigration} with the same table name.
 *
 * @example
 * new DataSource({ ..., migrations: [
 *   createWorkflowStateMigration({ tableName: 'billing_fsm_state' }),
 *   createWorkflowContextMigration({ tableName: 'billing_fsm_state' }),
 * ] });
 */
export function createWorkflowContextMigration(options: Pick<TypeOrmFsmStateStoreOptions, 'tableName'> = {}): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE, createWorkflowContextMigration.name);

  return schemaMigration(CONTEXT_MIGRATION_NAME, (columns) => ({
    columns: [{ table: stateTable, column: columns.json('context', true) }],
  }));
}

/** Adds the `context` column to the state table with the default name (`mcp_fsm_state`). */
export class AddMcpFsmContext1764547200000 extends createWorkflowContextMigration() {}

/**
 * A TypeORM migration class that adds the indexes the workflow console's list reads by
 * (`listInstances`: newest first, of every machine or of one) to the state table in
 * `options`: `(updated_at, handle)` and `(machine, updated_at, handle)`; `down` drops them.
 * Without it the list still works, and the database sorts the instances of the page's
 * machine (or all of them) for every page. Its name is fixed (`AddMcpFsmListIndexes1764892800000`):
 * register one per DataSource, after {@link createWorkflowStateMigration} with the same table name.
 *
 * @example
 * new DataSource({ ..., migrations: [
 *   createWorkflowStateMigration({ tableName: 'billing_fsm_state' }),
 *   createWorkflowContextMigration({ tableName: 'billing_fsm_state' }),
 *   createWorkflowListIndexMigration({ tableName: 'billing_fsm_state' }),
 * ] });
 */
export function createWorkflowListIndexMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'tableName'> = {},
): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE, createWorkflowListIndexMigration.name);

  return schemaMigration(LIST_MIGRATION_NAME, (columns) => ({
    indices: [
      { table: stateTable, index: columns.index(stateTable, 'updated', ['updated_at', 'handle']) },
      { table: stateTable, index: columns.index(stateTable, 'machine_updated', ['machine', 'updated_at', 'handle']) },
    ],
  }));
}

/** Adds the console's list indexes to the state table with the default name (`mcp_fsm_state`). */
export class AddMcpFsmListIndexes1764892800000 extends createWorkflowListIndexMigration() {}
