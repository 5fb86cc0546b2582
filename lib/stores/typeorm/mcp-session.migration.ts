import { type MigrationInterface, type QueryRunner, Table, TableIndex, type TableColumnOptions } from 'typeorm';
import { assertFsmTableName, fsmSqlDialect } from './fsm-state.sql.js';
import {
  DEFAULT_MCP_SESSION_EVENT_TABLE,
  DEFAULT_MCP_SESSION_TABLE,
  type TypeOrmMcpSessionStoreOptions,
} from './typeorm-mcp-session-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpSessions1764633600000';

/**
 * A TypeORM migration class that creates the tables of `TypeOrmMcpSessionStore` (sessions,
 * kept GET-stream events) and their indexes, for the table names in `options`; `down` drops
 * both. Built with TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB
 * and SQLite. Its name is fixed (`CreateMcpSessions1764633600000`): register one per DataSource.
 *
 * @example
 * new DataSource({ ..., migrations: [createMcpSessionMigration({ tableName: 'billing_mcp_session' })] });
 */
export function createMcpSessionMigration(
  options: Pick<TypeOrmMcpSessionStoreOptions, 'tableName' | 'eventTableName'> = {},
): new () => MigrationInterface {
  const sessionTable = assertFsmTableName(options.tableName ?? DEFAULT_MCP_SESSION_TABLE);
  const eventTable = assertFsmTableName(options.eventTableName ?? DEFAULT_MCP_SESSION_EVENT_TABLE);

  return class CreateMcpSessions implements MigrationInterface {
    name = MIGRATION_NAME;

    async up(queryRunner: QueryRunner): Promise<void> {
      const dialect = fsmSqlDialect(queryRunner.dataSource.options.type);
      const mysql = dialect === 'mysql';
      // MySQL's default collations ignore case: session ids must compare exactly.
      const binary = mysql ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
      const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
        name,
        type: 'varchar',
        length: String(length),
        isNullable,
        ...binary,
      });
      const json = (name: string): TableColumnOptions => ({ name, type: mysql ? 'longtext' : 'text', ...binary });
      const epochMs = (name: string): TableColumnOptions => ({ name, type: 'bigint' });

      await queryRunner.createTable(
        new Table({
          name: sessionTable,
          columns: [
            { ...text('id', 64), isPrimary: true },
            text('server_id', 255),
            json('initialize'),
            text('principal', 255, true),
            epochMs('created_at'),
            epochMs('last_seen_at'),
          ],
          indices: [new TableIndex({ name: indexName(sessionTable, 'server_seen'), columnNames: ['server_id', 'last_seen_at'] })],
        }),
      );
      await queryRunner.createTable(
        new Table({
          name: eventTable,
          columns: [
            {
              name: 'id',
              // SQLite autoincrements only an INTEGER PRIMARY KEY.
              type: dialect === 'sqlite' ? 'integer' : 'bigint',
              isPrimary: true,
              isGenerated: true,
              generationStrategy: 'increment',
            },
            text('session_id', 64),
            json('message'),
            epochMs('created_at'),
          ],
          indices: [
            new TableIndex({ name: indexName(eventTable, 'session_id'), columnNames: ['session_id', 'id'] }),
            new TableIndex({ name: indexName(eventTable, 'created_at'), columnNames: ['created_at'] }),
          ],
        }),
      );
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      await queryRunner.dropTable(eventTable, true);
      await queryRunner.dropTable(sessionTable, true);
    }
  };
}

/** Creates the session store's tables with the default names (`mcp_session`, `mcp_session_event`). */
export class CreateMcpSessions1764633600000 extends createMcpSessionMigration() {}

function indexName(table: string, suffix: string): string {
  return `IDX_${table.slice(table.lastIndexOf('.') + 1)}_${suffix}`;
}
