/** Messages of the TypeORM session store, worded once (operators read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Bootstrap error: the session tables are missing or lack a column (their migration was not run). */
export const sessionStoreSchemaNotReady = (tables: readonly string[], error: unknown): string =>
  `TypeOrmMcpSessionStore: tables ${tables.join(' and ')} are not ready for this version of nestjs-mcp-fsm (${reasonOf(error)}). Run the migration CreateMcpSessions1764633600000 (createMcpSessionMigration for custom table names).`;

/** Bootstrap error: the table of followed handles is missing or lacks a column (its migration was not run). */
export const sessionHandleTableNotReady = (table: string, error: unknown): string =>
  `TypeOrmMcpSessionStore: table ${table} is not ready for this version of nestjs-mcp-fsm (${reasonOf(error)}). Run the migration CreateMcpSessionHandles1764806400000 (createMcpSessionHandleMigration for a custom table name).`;

/** Store error: a stored session record has a column whose value cannot be read back. */
export const sessionRecordUnreadable = (column: string, error: unknown): string =>
  `TypeOrmMcpSessionStore: the stored session's ${column} cannot be read (${reasonOf(error)}).`;
