/** Messages of the TypeORM task store, worded once (operators read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Bootstrap error: the task table is missing or lacks a column (its migration was not run). */
export const taskStoreSchemaNotReady = (table: string, error: unknown): string =>
  `TypeOrmMcpTaskStore: table ${table} is not ready for this version of nestjs-mcp-fsm (${reasonOf(error)}). Run the migration CreateMcpTasks1766448000000 (createMcpTaskMigration for a custom table name).`;

/** Store error: a stored task has a column whose value cannot be read back. */
export const taskRecordUnreadable = (taskId: string, column: string, error: unknown): string =>
  `TypeOrmMcpTaskStore: the stored task ${taskId} has a ${column} that cannot be read (${reasonOf(error)}).`;

/** Store error: another process held the lock of a requester's task creations for longer than the store waits. */
export const taskRequesterLockTimedOut = (table: string, seconds: number): string =>
  `TypeOrmMcpTaskStore: the lock on creating tasks in ${table} for this requester was still held by another connection after ${seconds} s; nothing was created.`;
