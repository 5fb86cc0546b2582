/** Messages of the TypeORM session store, worded once (operators read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Bootstrap error: the session tables are missing or lack a column (their migration was not run). */
export const sessionStoreSchemaNotReady = (tables: readonly string[], error: unknown): string =>
  `TypeOrmMcpSessionStore: tables ${tables.join(' and ')} are not ready for this version of nestjs-mcp-fsm (${reasonOf(error)}). Run the migration CreateMcpSessions1764633600000 (createMcpSessionMigration for custom table names).`;
