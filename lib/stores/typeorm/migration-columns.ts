import { type QueryRunner, TableIndex, type TableColumnOptions } from 'typeorm';
import { runnerDataSource } from './query-runner-source.js';
import { type FsmSqlDialect, fsmSqlDialect } from './typeorm-sql.js';

/**
 * The column and index builders of the shipped migrations, for the dialect of the DataSource
 * a migration runs on. Text columns are binary on MySQL/MariaDB, whose default collations
 * ignore case: handles, ids and state names must compare exactly.
 */
export class MigrationColumns {
  private readonly dialect: FsmSqlDialect;
  private readonly binary: Pick<TableColumnOptions, 'charset' | 'collation'>;

  /** Throws, naming `migration`, when the DataSource of `queryRunner` is of a type the stores do not support. */
  constructor(queryRunner: QueryRunner, migration: string) {
    this.dialect = fsmSqlDialect(runnerDataSource(queryRunner).options.type, migration);
    this.binary = this.dialect === 'mysql' ? { charset: 'utf8mb4', collation: 'utf8mb4_bin' } : {};
  }

  /** A VARCHAR of `length` characters. */
  text(name: string, length: number, isNullable = false): TableColumnOptions {
    return { name, type: 'varchar', length: String(length), isNullable, ...this.binary };
  }

  /** JSON text of any length: TEXT, LONGTEXT on MySQL/MariaDB. */
  json(name: string, isNullable = false): TableColumnOptions {
    return this.longText(name, isNullable);
  }

  /** Text of any length (a message, JSON): TEXT, LONGTEXT on MySQL/MariaDB. */
  longText(name: string, isNullable = false): TableColumnOptions {
    return { name, type: this.dialect === 'mysql' ? 'longtext' : 'text', isNullable, ...this.binary };
  }

  /** A time in milliseconds since the epoch (BIGINT). */
  epochMs(name: string, isNullable = false): TableColumnOptions {
    return { name, type: 'bigint', isNullable };
  }

  /**
   * The autoincrement primary key `id`: BIGINT, INTEGER on SQLite, which autoincrements only an
   * INTEGER PRIMARY KEY (TypeORM declares it AUTOINCREMENT: ids are never reused).
   */
  id(): TableColumnOptions {
    return {
      name: 'id',
      type: this.dialect === 'sqlite' ? 'integer' : 'bigint',
      isPrimary: true,
      isGenerated: true,
      generationStrategy: 'increment',
    };
  }

  /** The index `IDX_<table>_<suffix>` (the table without its schema) on `columnNames`. */
  index(table: string, suffix: string, columnNames: string[]): TableIndex {
    return new TableIndex({ name: `IDX_${table.slice(table.lastIndexOf('.') + 1)}_${suffix}`, columnNames });
  }
}
