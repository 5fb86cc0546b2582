import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import { DEFAULT_WORKFLOW_STATE_TABLE, type TypeOrmFsmStateStoreOptions } from './typeorm-fsm-state-store-options.interface.js';

const TEAM_MIGRATION_NAME = 'AddMcpFsmTeam1766016000000';

/**
 * A TypeORM migration class that adds the nullable `team` column (VARCHAR(255): the value of a
 * machine's team claim in its starter's token, `defineMachine(..., { access: { team } })`) to the
 * state table in `options`; `down` drops it. Rows stored before it ran have no team and keep
 * their owner rule: only their starter may act on them. Its name is fixed
 * (`AddMcpFsmTeam1766016000000`): register one per DataSource, after
 * `createWorkflowStateMigration` with the same table name (the store needs it).
 *
 * @example
 * new DataSource({ ..., migrations: [
 *   createWorkflowStateMigration({ tableName: 'billing_fsm_state' }),
 *   createWorkflowContextMigration({ tableName: 'billing_fsm_state' }),
 *   createWorkflowTeamMigration({ tableName: 'billing_fsm_state' }),
 * ] });
 */
export function createWorkflowTeamMigration(options: Pick<TypeOrmFsmStateStoreOptions, 'tableName'> = {}): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_WORKFLOW_STATE_TABLE, createWorkflowTeamMigration.name);

  return schemaMigration(TEAM_MIGRATION_NAME, (columns) => ({ columns: [{ table: stateTable, column: columns.text('team', 255, true) }] }));
}

/** Adds the `team` column to the state table with the default name (`mcp_fsm_state`). */
export class AddMcpFsmTeam1766016000000 extends createWorkflowTeamMigration() {}
