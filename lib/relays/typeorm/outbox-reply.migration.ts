import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from '../../stores/typeorm/schema-migration.js';
import { DEFAULT_OUTBOX_TABLE, type OutboxTransitionRelayOptions } from './outbox-transition.relay.js';
import { assertFsmTableName } from '../../stores/typeorm/typeorm-sql.js';

/** The fixed name of the migration that adds the outbox's `reply` column. */
export const OUTBOX_REPLY_MIGRATION_NAME = 'AddMcpFsmOutboxReply1765584000000';

/**
 * A TypeORM migration class that adds the nullable `reply` column (JSON text) to the outbox
 * table of `OutboxTransitionRelay`, which then also carries clients' answers to server-to-client
 * requests between processes; `down` drops it. Rows written before it ran are transitions, as
 * they were. Built with TypeORM's `TableColumn`, so it runs on PostgreSQL, MySQL/MariaDB and
 * SQLite. Its name is fixed (`AddMcpFsmOutboxReply1765584000000`): register one per DataSource,
 * after `createOutboxMigration` with the same table name.
 *
 * @example
 * new DataSource({ ..., migrations: [
 *   createOutboxMigration({ tableName: 'billing_fsm_outbox' }),
 *   createOutboxReplyMigration({ tableName: 'billing_fsm_outbox' }),
 * ] });
 */
export function createOutboxReplyMigration(options: Pick<OutboxTransitionRelayOptions, 'tableName'> = {}): new () => MigrationInterface {
  const outboxTable = assertFsmTableName(options.tableName ?? DEFAULT_OUTBOX_TABLE, createOutboxReplyMigration.name);

  return schemaMigration(OUTBOX_REPLY_MIGRATION_NAME, (columns) => ({
    columns: [{ table: outboxTable, column: columns.json('reply', true) }],
  }));
}

/** Adds the `reply` column to the outbox table with the default name (`mcp_fsm_outbox`). */
export class AddMcpFsmOutboxReply1765584000000 extends createOutboxReplyMigration() {}
