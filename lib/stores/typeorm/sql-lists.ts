import type { FsmSqlDialect } from './typeorm-sql.js';

/** `column` is one of a list bound as one parameter (see {@link listParameter}). */
export function columnIn(dialect: FsmSqlDialect, column: string): string {
  return {
    postgres: `${column} = ANY(?)`,
    mysql: `${column} IN (?)`,
    sqlite: `${column} IN (SELECT value FROM json_each(?))`,
  }[dialect];
}

/** A list of strings as the one parameter of {@link columnIn}: an array, JSON text on SQLite. */
export function listParameter(dialect: FsmSqlDialect, values: readonly string[]): unknown {
  return dialect === 'sqlite' ? JSON.stringify(values) : [...values];
}
