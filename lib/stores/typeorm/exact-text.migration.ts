import type { MigrationInterface } from 'typeorm';
import { schemaMigration } from './schema-migration.js';
import { assertFsmTableName } from './typeorm-sql.js';

const MIGRATION_NAME = 'MakeMcpFsmTextExact1766793600000';

/**
 * A TypeORM migration class that makes the text columns of `tableNames` compare exactly on
 * MySQL/MariaDB: each existing table's text columns get the binary NO PAD collation
 * (`utf8mb4_nopad_bin` on MariaDB, `utf8mb4_0900_bin` on MySQL 8), as the shipped migrations now
 * create them. Under 0.4's `utf8mb4_bin` (PAD SPACE) `'solo' = 'solo '`: a principal, team, key
 * or id with a trailing space matched another's. One `ALTER TABLE` per table (it is rebuilt
 * once); a table that does not exist is skipped. `down` gives the columns back `utf8mb4_bin`.
 * Nothing on PostgreSQL and SQLite, whose text compares exactly, nor on a MySQL without a NO PAD
 * binary collation (5.7: the stores compare owners, teams and keys as bytes in their SQL).
 * Its name is fixed (`MakeMcpFsmTextExact1766793600000`): register one per DataSource, after the
 * migrations that create the tables.
 *
 * @example
 * new DataSource({ ..., migrations: [..., createExactTextMigration({ tableNames: ['billing_fsm_state', 'billing_fsm_transition', 'billing_mcp_task'] })] });
 */
export function createExactTextMigration(options: { tableNames: readonly string[] }): new () => MigrationInterface {
  const tables = options.tableNames.map((name) => assertFsmTableName(name, createExactTextMigration.name));

  return schemaMigration(MIGRATION_NAME, () => ({ exactText: tables }));
}
