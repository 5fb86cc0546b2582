import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';
import { DEFAULT_WORKFLOW_RECEIPT_TABLE, type TypeOrmFsmStateStoreOptions } from './typeorm-fsm-state-store-options.interface.js';

const MIGRATION_NAME = 'CreateMcpFsmReceipt1766966400000';

/**
 * A TypeORM migration class that creates the receipt table of keyed calls (a `tools/call` with
 * an idempotency key, a task's call, `McpWorkflowService.approve`/`reject` with one) for the
 * table name in `options`: one row per requester and idempotency key (the primary key, which
 * makes a keyed call commit once), with the tool, the fingerprint of its arguments, the
 * instance it changed, its answer, and an index by expiry for the sweep; `down` drops it.
 * Existing tables and rows are not touched. Built with TypeORM's `Table`, so it runs on
 * PostgreSQL, MySQL/MariaDB and SQLite. Its name is fixed (`CreateMcpFsmReceipt1766966400000`):
 * register one per DataSource, after {@link createWorkflowStateMigration}.
 *
 * @example
 * new DataSource({ ..., migrations: [..., createWorkflowReceiptMigration({ receiptTableName: 'billing_fsm_receipt' })] });
 */
export function createWorkflowReceiptMigration(
  options: Pick<TypeOrmFsmStateStoreOptions, 'receiptTableName'> = {},
): new () => MigrationInterface {
  const table = assertFsmTableName(options.receiptTableName ?? DEFAULT_WORKFLOW_RECEIPT_TABLE, createWorkflowReceiptMigration.name);

  return schemaMigration(MIGRATION_NAME, (columns) => ({
    tables: [
      {
        name: table,
        columns: [
          { ...columns.text('requester', 255), isPrimary: true },
          { ...columns.text('idempotency_key', 255), isPrimary: true },
          columns.text('tool', 255),
          columns.text('fingerprint', 64),
          columns.text('instance_key', 255),
          columns.json('answer'),
          columns.epochMs('created_at'),
          columns.epochMs('expires_at'),
        ],
        indices: [columns.index(table, 'expires_at', ['expires_at'])],
      },
    ],
  }));
}

/** Creates the receipt table of keyed calls with the default name (`mcp_fsm_receipt`). */
export class CreateMcpFsmReceipt1766966400000 extends createWorkflowReceiptMigration() {}
