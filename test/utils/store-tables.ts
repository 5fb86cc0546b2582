import type { DataSource, MigrationInterface } from 'typeorm';
import {
  createExactTextMigration,
  createWorkflowApprovalMigration,
  createWorkflowContextMigration,
  createWorkflowEventMigration,
  createWorkflowStateMigration,
  createWorkflowTeamMigration,
  createWorkflowTimerMigration,
  createWorkflowWaitingIndexMigration,
  type TypeOrmFsmStateStoreOptions,
} from '../../lib/typeorm.js';

type Tables = Pick<TypeOrmFsmStateStoreOptions, 'tableName' | 'historyTableName' | 'timerTableName' | 'eventTableName'>;

/**
 * The shipped migrations of the store tables, in the order they run (the timer table with
 * `timerTableName`: a machine with `after` needs it; the receipt table of outside events with `eventTableName`).
 */
const migrations = (tables: Tables): MigrationInterface[] => [
  new (createWorkflowStateMigration(tables))(),
  new (createWorkflowContextMigration(tables))(),
  new (createWorkflowApprovalMigration(tables))(),
  new (createWorkflowTeamMigration(tables))(),
  new (createWorkflowWaitingIndexMigration(tables))(),
  ...(tables.timerTableName ? [new (createWorkflowTimerMigration(tables))()] : []),
  ...(tables.eventTableName ? [new (createWorkflowEventMigration(tables))()] : []),
  new (createExactTextMigration({
    tableNames: [tables.tableName, tables.historyTableName, tables.timerTableName, tables.eventTableName].filter(
      (name): name is string => name !== undefined,
    ),
  }))(),
];

/** Runs the shipped migrations `up` (or `down`, in reverse) for the store tables of one test run. */
async function migrate(dataSource: DataSource, tables: Tables, direction: 'up' | 'down'): Promise<void> {
  const runner = dataSource.createQueryRunner();
  try {
    const steps = migrations(tables);
    for (const migration of direction === 'up' ? steps : steps.reverse()) await migration[direction](runner);
  } finally {
    await runner.release();
  }
}

/** Creates the store tables of one test run with the shipped migrations (no synchronize). */
export const createStoreTables = (dataSource: DataSource, tables: Tables) => migrate(dataSource, tables, 'up');

/** Drops the store tables of one test run. */
export const dropStoreTables = (dataSource: DataSource, tables: Tables) => migrate(dataSource, tables, 'down');
