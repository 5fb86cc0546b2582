import { type MigrationInterface, type QueryRunner, Table, TableIndex, type TableColumnOptions } from 'typeorm';
import { assertFsmTableName, fsmSqlDialect } from './fsm-state.sql.js';
import { DEFAULT_FSM_OUTBOX_TABLE, type OutboxFsmTransitionRelayOptions } from './outbox-fsm-transition.relay.js';

const MIGRATION_NAME = 'CreateMcpFsmOutbox1764720000000';

/**
 * A TypeORM migration class that creates the outbox table of `OutboxFsmTransitionRelay`
 * (an autoincrement id, the publishing process, machine, store key, new state, creation time)
 * and its index on the creation time, for the table name in `options`; `down` drops it. Built
 * with TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite.
 * Its name is fixed (`CreateMcpFsmOutbox1764720000000`): register one per DataSource.
 *
 * @example
 * new DataSource({ ..., migrations: [createFsmOutboxMigration({ tableName: 'billing_fsm_outbox' })] });
 */
export function createFsmOutboxMigration(
  options: Pick<OutboxFsmTransitionRelayOptions, 'tableName'> = {},
): new () => MigrationInterface {
  const outboxTable = assertFsmTableName(options.tableName ?? DEFAULT_FSM_OUTBOX_TABLE);

  return class CreateMcpFsmOutbox implements MigrationInterface {
    name = MIGRATION_NAME;

    async up(queryRunner: QueryRunner): Promise<void> {
      const dialect = fsmSqlDialect(queryRunner.dataSource.options.type);
      // MySQL's default collations ignore case: store keys and state names must compare exactly.
      const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
        name,
        type: 'varchar',
        length: String(length),
        isNullable,
        ...(dialect === 'mysql' ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {}),
      });

      await queryRunner.createTable(
        new Table({
          name: outboxTable,
          columns: [
            {
              name: 'id',
              // SQLite autoincrements only an INTEGER PRIMARY KEY (AUTOINCREMENT: ids are never reused).
              type: dialect === 'sqlite' ? 'integer' : 'bigint',
              isPrimary: true,
              isGenerated: true,
              generationStrategy: 'increment',
            },
            text('origin', 64),
            text('machine', 255),
            text('store_key', 255),
            text('state', 512, true),
            { name: 'created_at', type: 'bigint' },
          ],
          indices: [
            new TableIndex({
              name: `IDX_${outboxTable.slice(outboxTable.lastIndexOf('.') + 1)}_created_at`,
              columnNames: ['created_at'],
            }),
          ],
        }),
      );
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.dropTable(outboxTable, true);
    }
  };
}

/** Creates the outbox table with the default name (`mcp_fsm_outbox`). */
export class CreateMcpFsmOutbox1764720000000 extends createFsmOutboxMigration() {}
