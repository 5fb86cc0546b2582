import { type QueryRunner, TableIndex, type TableColumnOptions } from 'typeorm';
import { exactTextCollation } from './mysql-text-collation.js';
import { runnerDataSource } from './query-runner-source.js';
import { type FsmSqlDialect, fsmSqlDialect } from './typeorm-sql.js';

/**
 * The column and index builders of the shipped migrations, for the dialect of the DataSource
 * a migration runs on. Text columns are binary on MySQL/MariaDB, whose default collations
 * ignore case, and NO PAD where the server has such a collation (`exactTextCollation`), whose
 * PAD SPACE ones ignore trailing spaces: handles, owners, teams, ids and state names must
 * compare exactly.
 */
export class MigrationColumns {
  private readonly binary: Pick<TableColumnOptions, 'charset' | 'collation'>;

  private constructor(
    private readonly dialect: FsmSqlDialect,
    collation: string | undefined,
  ) {
    this.binary = collation ? { charset: 'utf8mb4', collation } : {};
  }

  /**
   * The builders for the DataSource of `queryRunner` (on MySQL/MariaDB after one query for the
   * collation its text gets). Throws, naming `migration`, when the DataSource is of a type the
   * stores do not support.
   */
  static async of(queryRunner: QueryRunner, migration: string): Promise<MigrationColumns> {
    const dialect = fsmSqlDialect(runnerDataSource(queryRunner).options.type, migration);
    return new MigrationColumns(dialect, dialect === 'mysql' ? await exactTextCollation(queryRunner) : undefined);
  }

  /** The collation of text columns on MySQL/MariaDB; `undefined` elsewhere (their text compares exactly). */
  get textCollation(): string | undefined {
    return this.binary.collation;
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
