/** Options of `TypeOrmMcpTaskStore` (and of `createMcpTaskMigration`, which takes the same table name). */
export interface TypeOrmMcpTaskStoreOptions {
  /** Table of MCP tasks (optionally `schema.table`). @default 'mcp_task' */
  tableName?: string;
  /**
   * Time limit, in milliseconds, of every store operation, waiting for a connection included
   * (on better-sqlite3: for the turn on the DataSource's one connection).
   * @default 5000
   */
  timeoutMs?: number;
}

/** Default table of MCP tasks. */
export const DEFAULT_MCP_TASK_TABLE = 'mcp_task';
