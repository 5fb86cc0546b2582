import { type MigrationInterface, type QueryRunner, Table, TableColumn, TableIndex, type TableColumnOptions } from 'typeorm';
import { assertFsmTableName, fsmSqlDialect } from './fsm-state.sql.js';
import {
  DEFAULT_FSM_STATE_TABLE,
  DEFAULT_FSM_TRANSITION_TABLE,
  type TypeOrmFsmStateStoreOptions,
} from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpFsmState1764460800000';
const CONTEXT_MIGRATION_NAME = 'AddMcpFsmContext1764547200000';

/**
 * A TypeORM migration class that creates the store's tables (instance states, transition
 * history) and their indexes, for the table names in `options`; `down` drops both. Built with
 * TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite. Its
 * name is fixed (`CreateMcpFsmState1764460800000`): register one per DataSource, followed by
 * {@link createFsmContextMigration} (the tables of 0.2 need both).
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

/**
 * A TypeORM migration class that adds the nullable `context` column (the machine's XState
 * context as JSON text; TEXT, LONGTEXT on MySQL/MariaDB) to the state table in `options`;
 * `down` drops it. Rows of 0.1 keep working: their context is NULL, which loads as none.
 * Built with TypeORM's `TableColumn`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite
 * (where TypeORM rebuilds the table, keeping its rows). Its name is fixed
 * (`AddMcpFsmContext1764547200000`): register one per DataSource, after
 * {@link createFsmStateMigration} with the same table name.
 *
 * @example
 * new DataSource({ ..., migrations: [
 *   createFsmStateMigration({ tableName: 'billing_fsm_state' }),
 *   createFsmContextMigration({ tableName: 'billing_fsm_state' }),
 * ] });
 */
export function createFsmContextMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'tableName'> = {},
): new () => MigrationInterface {
  const stateTable = assertFsmTableName(options.tableName ?? DEFAULT_FSM_STATE_TABLE);

  return class AddMcpFsmContext implements MigrationInterface {
    name = CONTEXT_MIGRATION_NAME;

    async up(queryRunner: QueryRunner): Promise<void> {
      const mysql = fsmSqlDialect(queryRunner.dataSource.options.type) === 'mysql';
      await queryRunner.addColumn(
        stateTable,
        new TableColumn({
          name: 'context',
          type: mysql ? 'longtext' : 'text',
          isNullable: true,
          ...(mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
        }),
      );
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.dropColumn(stateTable, 'context');
    }
  };
}

/** Adds the `context` column to the state table with the default name (`mcp_fsm_state`). */
export class AddMcpFsmContext1764547200000 extends createFsmContextMigration() {}

function indexName(table: string, suffix: string): string {
  return `IDX_${table.slice(table.lastIndexOf('.') + 1)}_${suffix}`;
}
