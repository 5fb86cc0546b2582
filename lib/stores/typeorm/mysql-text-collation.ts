import type { QueryRunner } from 'typeorm';
import { quoteTableName } from './typeorm-sql.js';

/** The binary collation of MySQL/MariaDB text that ignores trailing spaces (PAD SPACE): what the shipped migrations made before 0.5. */
export const PAD_SPACE_COLLATION = 'utf8mb4_bin';

/** Binary collations that compare every character, trailing spaces included (NO PAD): MariaDB's, then MySQL 8's. */
const NO_PAD_COLLATIONS = ['utf8mb4_nopad_bin', 'utf8mb4_0900_bin'] as const;

interface TextColumnRow {
  name: string;
  type: string;
  nullable: string;
  collation: string;
}

/**
 * The collation the shipped migrations give text columns on this MySQL/MariaDB server: a binary
 * NO PAD one (`utf8mb4_nopad_bin` on MariaDB 10.2+, `utf8mb4_0900_bin` on MySQL 8), under which
 * `'solo' = 'solo '` is false; {@link PAD_SPACE_COLLATION} on a server that has neither (MySQL
 * 5.7), where the stores compare owners, teams and keys as bytes in their SQL instead.
 */
export async function exactTextCollation(runner: QueryRunner): Promise<string> {
  const rows = (await runner.query(
    `SELECT COLLATION_NAME AS name FROM information_schema.COLLATIONS WHERE COLLATION_NAME IN (${NO_PAD_COLLATIONS.map(() => '?').join(', ')})`,
    [...NO_PAD_COLLATIONS],
  )) as { name: string }[];
  const available = new Set(rows.map((row) => row.name));
  return NO_PAD_COLLATIONS.find((collation) => available.has(collation)) ?? PAD_SPACE_COLLATION;
}

/**
 * Gives every text column of `table` (optionally `schema.table`) the collation `to`, in one
 * `ALTER TABLE` (the table is rebuilt once), keeping each column's type and nullability;
 * columns already in `to` are left alone, and a table that does not exist is skipped.
 */
export async function collateTextColumns(runner: QueryRunner, table: string, to: string): Promise<void> {
  const dot = table.indexOf('.');
  const [schema, name] = dot === -1 ? [null, table] : [table.slice(0, dot), table.slice(dot + 1)];
  const columns = (await runner.query(
    'SELECT COLUMN_NAME AS name, COLUMN_TYPE AS type, IS_NULLABLE AS nullable, COLLATION_NAME AS collation ' +
      'FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ? AND COLLATION_NAME IS NOT NULL ' +
      'ORDER BY ORDINAL_POSITION',
    [schema, name],
  )) as TextColumnRow[];
  const changes = columns
    .filter((column) => column.collation !== to)
    .map(
      (column) =>
        `MODIFY \`${column.name}\` ${column.type} CHARACTER SET utf8mb4 COLLATE ${to} ${column.nullable === 'YES' ? 'NULL' : 'NOT NULL'}`,
    );
  if (changes.length) await runner.query(`ALTER TABLE ${quoteTableName('mysql', table)} ${changes.join(', ')}`);
}
