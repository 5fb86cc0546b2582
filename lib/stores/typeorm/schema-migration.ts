import {
  type MigrationInterface,
  type QueryRunner,
  Table,
  TableColumn,
  type TableColumnOptions,
  type TableIndex,
  type TableOptions,
} from 'typeorm';
import { MigrationColumns } from './migration-columns.js';
import { collateTextColumns, PAD_SPACE_COLLATION } from './mysql-text-collation.js';

/** What one shipped migration changes, built for the dialect it runs on. */
export interface SchemaChanges {
  /** Tables to create, in order. */
  readonly tables?: readonly TableOptions[];
  /** Columns to add to existing tables, in order. */
  readonly columns?: readonly { readonly table: string; readonly column: TableColumnOptions }[];
  /** Indexes to add to existing tables, in order. */
  readonly indices?: readonly { readonly table: string; readonly index: TableIndex }[];
  /**
   * Existing tables whose text columns get the collation new ones get (`MigrationColumns`:
   * binary NO PAD on MySQL/MariaDB), so they compare exactly; `down` gives them back the PAD
   * SPACE binary collation. Nothing on PostgreSQL and SQLite, whose text compares exactly; a
   * table that does not exist is skipped.
   */
  readonly exactText?: readonly string[];
}

/**
 * The class of a shipped migration named `name`: `up` creates the tables, then adds the columns
 * and the indexes that `changes` builds, then makes the text of the `exactText` tables exact;
 * `down` undoes them in reverse order (collations, indexes, columns, tables). Built with TypeORM's `Table`, `TableColumn` and `TableIndex`, so it runs on
 * PostgreSQL, MySQL/MariaDB and SQLite; a DataSource of another type fails, naming the migration.
 */
export function schemaMigration(name: string, changes: (columns: MigrationColumns) => SchemaChanges): new () => MigrationInterface {
  return class SchemaMigration implements MigrationInterface {
    readonly name = name;

    async up(queryRunner: QueryRunner): Promise<void> {
      const builders = await MigrationColumns.of(queryRunner, name);
      const { tables = [], columns = [], indices = [], exactText = [] } = changes(builders);
      for (const table of tables) await queryRunner.createTable(new Table(table));
      for (const { table, column } of columns) await queryRunner.addColumn(table, new TableColumn(column));
      for (const { table, index } of indices) await queryRunner.createIndex(table, index);
      const collation = builders.textCollation;
      if (collation) for (const table of exactText) await collateTextColumns(queryRunner, table, collation);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      const builders = await MigrationColumns.of(queryRunner, name);
      const { tables = [], columns = [], indices = [], exactText = [] } = changes(builders);
      if (builders.textCollation)
        for (const table of [...exactText].reverse()) await collateTextColumns(queryRunner, table, PAD_SPACE_COLLATION);
      for (const { table, index } of [...indices].reverse()) await queryRunner.dropIndex(table, index);
      for (const { table, column } of [...columns].reverse()) await queryRunner.dropColumn(table, column.name);
      for (const table of [...tables].reverse()) await queryRunner.dropTable(table.name, true);
    }
  };
}
