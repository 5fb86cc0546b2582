import { type MigrationInterface, type QueryRunner, Table, TableIndex, type TableColumnOptions } from 'typeorm';
import { assertFsmTableName, fsmSqlDialect } from './fsm-state.sql.js';
import {
  DEFAULT_FSM_STATE_TABLE,
  DEFAULT_FSM_TRANSITION_TABLE,
  type TypeOrmFsmStateStoreOptions,
} from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpFsmState1764460800000';

/**
 * A TypeORM migration class that creates the store's tables (instance states, transition
 * history) and their indexes, for the table names in `options`; `down` drops both. Built with
 * TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite. Its
 * name is fixed (`CreateMcpFsmState1764460800000`): register one per DataSource.
 *
 * @example
 * new DataSource({ ..., migrations: [createFsmStateMigration({ tableName: 'billing_fsm_state' })] });
 */
export function createFsmStateMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'tableName' | 'historyTableName'> = {},
): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_FSM_STATE_TABLE);
  const historyTable = assertFsmTableName(options.historyTableName ?? DEFAULT_FSM_TRANSITION_TABLE);

  return class CreateMcpFsmState implements MigrationInterface {
    name = MIGRATION_NAME;

    async up(queryRunner: QueryRunner): Promise<void> {
      const dialect = fsmSqlDialect(queryRunner.dataSource.options.type);
      // MySQL's default collations ignore case: handles and state names must compare exactly.
      const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
        name,
        type: 'varchar',
        length: String(length),
        isNullable,
        ...(dialect === 'mysql' ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
      });
      const epochMs = (name: string, isNullable = false): TableColumnOptions => ({ name, type: 'bigint', isNullable });

      await queryRunner.createTable(
        new Table({
          name: stateTable,
          columns: [
            { ...text('handle', 255), isPrimary: true },
            text('machine', 255),
            text('state', 512),
            text('owner', 255, true),
            text('lease_token', 64, true),
            epochMs('lease_until', true),
            epochMs('created_at'),
            epochMs('updated_at'),
          ],
          indices: [new TableIndex({ name: indexName(stateTable, 'machine'), columnNames: ['machine'] })],
        }),
      );
      await queryRunner.createTable(
        new Table({
          name: historyTable,
          columns: [
            {
              name: 'id',
              // SQLite autoincrements only an INTEGER PRIMARY KEY.
              type: dialect === 'sqlite' ? 'integer' : 'bigint',
              isPrimary: true,
              isGenerated: true,
              generationStrategy: 'increment',
            },
            text('machine', 255),
            text('handle', 255),
            text('from_state', 512, true),
            text('to_state', 512),
            text('event', 255, true),
            text('tool', 255),
            text('principal', 255, true),
            epochMs('at'),
          ],
          indices: [new TableIndex({ name: indexName(historyTable, 'handle_at'), columnNames: ['handle', 'at'] })],
        }),
      );
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.dropTable(historyTable, true);
      await queryRunner.dropTable(stateTable, true);
    }
  };
}

/** Creates the store's tables with the default names (`mcp_fsm_state`, `mcp_fsm_transition`). */
export class CreateMcpFsmState1764460800000 extends createFsmStateMigration() {}

function indexName(table: string, suffix: string): string {
  return `IDX_${table.slice(table.lastIndexOf('.') + 1)}_${suffix}`;
}
