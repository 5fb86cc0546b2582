import type { QueryRunner } from 'typeorm';
import { storeInvalidTableName, storeUnsupportedDatabase } from '../stores.messages.js';

/** SQL dialects the TypeORM stores, the outbox relay and their migrations speak. */
export type FsmSqlDialect = 'postgres' | 'mysql' | 'sqlite';

/** The dialect of a TypeORM `DataSource` type; throws, naming `component`, for a type it does not support. */
export function fsmSqlDialect(type: string, component: string): FsmSqlDialect {
  switch (type) {
    case 'postgres':
      return 'postgres';
    case 'mysql':
    case 'mariadb':
      return 'mysql';
    case 'better-sqlite3':
      return 'sqlite';
    default:
      throw new Error(storeUnsupportedDatabase(component, type));
  }
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$/;

/** Checks that a table name given to `component` is a plain (optionally schema-qualified) identifier and returns it. */
export function assertFsmTableName(name: string, component: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(storeInvalidTableName(component, name));
  return name;
}

/** A table name (checked with {@link assertFsmTableName}) quoted for `dialect`, each part of `schema.table` on its own. */
export function quoteTableName(dialect: FsmSqlDialect, name: string): string {
  const quote = dialect === 'mysql' ? '`' : '"';
  return name
    .split('.')
    .map((part) => `${quote}${part}${quote}`)
    .join('.');
}

/** One SQL statement, with `?` placeholders whatever the dialect. */
export interface SqlStatement {
  sql: string;
  params: unknown[];
}

/** What one statement returned. */
export interface SqlResult<T> {
  records: T[];
  /** Rows the statement changed, as the driver counts them; otherwise the rows it returned. */
  affected: number;
  /** MySQL's insert id (the OK packet's `LAST_INSERT_ID`). */
  insertId?: number;
}

/** Runs one statement on `runner` (one round trip), its `?` placeholders written `$1`, `$2`… on PostgreSQL. */
export async function runSql<T>(runner: QueryRunner, dialect: FsmSqlDialect, statement: SqlStatement): Promise<SqlResult<T>> {
  let index = 0;
  const sql = dialect === 'postgres' ? statement.sql.replace(/\?/g, () => `$${++index}`) : statement.sql;
  const result = await runner.query(sql, statement.params, true);
  return {
    records: result.records ?? [],
    affected: result.affected ?? result.records?.length ?? 0,
    insertId: result.raw?.insertId === undefined ? undefined : Number(result.raw.insertId),
  };
}

/**
 * `column = ?` for `value`, compared exactly. MySQL/MariaDB compare under the column's collation,
 * and a PAD SPACE one (`utf8mb4_bin`, what the shipped migrations made before
 * `MakeMcpComparisonsExact1766793600000`, and all MySQL 5.7 has) ignores trailing spaces:
 * `'solo' = 'solo '`. There the value is compared as bytes too; the plain comparison stays
 * first, so an index on the column is still used.
 */
export function exactlyEquals(dialect: FsmSqlDialect, column: string, value: unknown): SqlStatement {
  return dialect === 'mysql'
    ? { sql: `(${column} = ? AND ${column} = CAST(? AS BINARY))`, params: [value, value] }
    : { sql: `${column} = ?`, params: [value] };
}

/**
 * Throws `notReady(error)`, with the error as its cause, when `from` (a quoted table, or a
 * join) lacks one of `columns`: `SELECT … WHERE 1 = 0` reads no row, and fails on a missing
 * table or column. What a store's schema check at bootstrap runs, once per table.
 */
export async function assertColumns(
  runner: QueryRunner,
  dialect: FsmSqlDialect,
  check: { columns: string; from: string },
  notReady: (error: unknown) => string,
): Promise<void> {
  try {
    await runSql(runner, dialect, { sql: `SELECT ${check.columns} FROM ${check.from} WHERE 1 = 0`, params: [] });
  } catch (error) {
    throw new Error(notReady(error), { cause: error });
  }
}
