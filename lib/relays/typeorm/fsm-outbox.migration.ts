import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from '../../stores/typeorm/schema-migration.js';
import { DEFAULT_OUTBOX_TABLE, type OutboxTransitionRelayOptions } from './outbox-transition.relay.js';
import { assertFsmTableName } from '../../stores/typeorm/typeorm-sql.js';

const MIGRATION_NAME = 'CreateMcpFsmOutbox1764720000000';

/**
 * A TypeORM migration class that creates the outbox table of `OutboxTransitionRelay`
 * (an autoincrement id, the publishing process, machine, store key, new state, creation time)
 * and its index on the creation time, for the table name in `options`; `down` drops it. Built
 * with TypeORM's `Table`/`TableIndex`, so it runs on PostgreSQL, MySQL/MariaDB and SQLite.
 * Its name is fixed (`CreateMcpFsmOutbox1764720000000`): register one per DataSource.
 *
 * @example
 * new DataSource({ ..., migrations: [createOutboxMigration({ tableName: 'billing_fsm_outbox' })] });
 */
export function createOutboxMigration(options: Pick<OutboxTransitionRelayOptions, 'tableName'> = {}): new () => MigrationInterface {
  const outboxTable = assertFsmTableName(options.tableName ?? DEFAULT_OUTBOX_TABLE, createOutboxMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: outboxTable,
        columns: [
          columns.id(),
          columns.text('origin', 64),
          columns.text('machine', 255),
          columns.text('store_key', 255),
          columns.text('state', 512, true),
          columns.epochMs('created_at'),
        ],
        indices: [columns.index(outboxTable, 'created_at', ['created_at'])],
      },
    ],
  }));
}

/** Creates the outbox table with the default name (`mcp_fsm_outbox`). */
export class CreateMcpFsmOutbox1764720000000 extends createOutboxMigration() {}
