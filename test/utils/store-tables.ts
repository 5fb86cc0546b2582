import type { DataSource } from 'typeorm';
import { createFsmStateMigration, type TypeOrmFsmStateStoreOptions } from '../../lib/stores/typeorm/index.js';

type Tables = Pick<TypeOrmFsmStateStoreOptions, 'tableName' | 'historyTableName'>;

/** Runs the shipped migration `up` (or `down`) for the store tables of one test run. */
async function migrate(dataSource: DataSource, tables: Tables, direction: 'up' | 'down'): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    await new (createFsmStateMigration(tables))()[direction](runner);
  } finally {
    await runner.release();
  }
}

/** Creates the store tables of one test run with the shipped migration (no synchronize). */
export const createStoreTables = (dataSource: DataSource, tables: Tables) => migrate(dataSource, tables, 'up');

/** Drops the store tables of one test run. */
export const dropStoreTables = (dataSource: DataSource, tables: Tables) => migrate(dataSource, tables, 'down');
