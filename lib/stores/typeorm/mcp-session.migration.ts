import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import {
  DEFAULT_MCP_SESSION_EVENT_TABLE,
  DEFAULT_MCP_SESSION_HANDLE_TABLE,
  DEFAULT_MCP_SESSION_TABLE,
  type TypeOrmMcpSessionStoreOptions,
} from './typeorm-mcp-session-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpSessions1764633600000';
const HANDLE_MIGRATION_NAME = 'CreateMcpSessionHandles1764806400000';

/**
 * A TypeORM migration class that creates the tables of `TypeOrmMcpSessionStore` (sessions,
 * kept GET-stream events) and their indexes, for the table names in `options`; `down` drops
 * both. Built with TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB
 * and SQLite. Its name is fixed (`CreateMcpSessions1764633600000`): register one per DataSource,
 * followed by {@link createMcpSessionHandleMigration} (the store needs both).
 *
 * @example
 * new DataSource({ ..., migrations: [createMcpSessionMigration({ tableName: 'billing_mcp_session' })] });
 */
export function createMcpSessionMigration(
  options: Pick<TypeOrmMcpSessionStoreOptions, 'tableName' | 'eventTableName'> = {},
): new () => MigrationInterface {
  const sessionTable = assertFsmTableName(options.tableName ?? DEFAULT_MCP_SESSION_TABLE, createMcpSessionMigration.name);
  const eventTable = assertFsmTableName(options.eventTableName ?? DEFAULT_MCP_SESSION_EVENT_TABLE, createMcpSessionMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: sessionTable,
        columns: [
          { ...columns.text('id', 64), isPrimary: true },
          columns.text('server_id', 255),
          columns.json('initialize'),
          columns.text('principal', 255, true),
          columns.epochMs('created_at'),
          columns.epochMs('last_seen_at'),
        ],
        indices: [columns.index(sessionTable, 'server_seen', ['server_id', 'last_seen_at'])],
      },
      {
        name: eventTable,
        columns: [columns.id(), columns.text('session_id', 64), columns.json('message'), columns.epochMs('created_at')],
        indices: [columns.index(eventTable, 'session_id', ['session_id', 'id']), columns.index(eventTable, 'created_at', ['created_at'])],
      },
    ],
  }));
}

/** Creates the session store's tables with the default names (`mcp_session`, `mcp_session_event`). */
export class CreateMcpSessions1764633600000 extends createMcpSessionMigration() {}

/**
 * A TypeORM migration class that creates the table of the handle-keyed instances each session
 * of `TypeOrmMcpSessionStore` follows (session id, store key, since when), keyed by both, with
 * an index by store key for the sessions that follow an instance; `down` drops it. Sessions
 * recorded before it ran follow nothing stored, and start following as they use handles. Built
 * with TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite. Its
 * name is fixed (`CreateMcpSessionHandles1764806400000`): register one per DataSource, after
 * {@link createMcpSessionMigration}.
 *
 * @example
 * new DataSource({ ..., migrations: [
 *   createMcpSessionMigration({ tableName: 'billing_mcp_session' }),
 *   createMcpSessionHandleMigration({ handleTableName: 'billing_mcp_session_handle' }),
 * ] });
 */
export function createMcpSessionHandleMigration(
  options: Pick<TypeOrmMcpSessionStoreOptions, 'handleTableName'> = {},
): new () => MigrationInterface {
  const handleTable = assertFsmTableName(options.handleTableName ?? DEFAULT_MCP_SESSION_HANDLE_TABLE, createMcpSessionHandleMigration.name);

  return schemaMigration(HANDLE_MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: handleTable,
        columns: [
          { ...columns.text('session_id', 64), isPrimary: true },
          { ...columns.text('store_key', 255), isPrimary: true },
          columns.epochMs('created_at'),
        ],
        indices: [columns.index(handleTable, 'store_key', ['store_key', 'created_at'])],
      },
    ],
  }));
}

/** Creates the table of followed handles with the default name (`mcp_session_handle`). */
export class CreateMcpSessionHandles1764806400000 extends createMcpSessionHandleMigration() {}
