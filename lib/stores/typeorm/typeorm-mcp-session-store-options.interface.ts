/** Options of `TypeOrmMcpSessionStore` (and of `createMcpSessionMigration`, which takes the same table names). */
export interface TypeOrmMcpSessionStoreOptions {
  /** Table of stateful HTTP sessions (optionally `schema.table`). @default 'mcp_session' */
  tableName?: string;
  /** Table of the messages kept from the sessions' GET streams (optionally `schema.table`). @default 'mcp_session_event' */
  eventTableName?: string;
  /** Table of the handle-keyed instances each session follows (optionally `schema.table`). @default 'mcp_session_handle' */
  handleTableName?: string;
  /**
   * Time limit, in milliseconds, of every store operation, waiting for a connection included
   * (on better-sqlite3: for the turn on the DataSource's one connection). An operation that
   * runs out of time fails with an error naming it and the limit, and its connection is closed,
   * not returned to the pool.
   * @default 5000
   */
  timeoutMs?: number;
}

/** Default table of stateful HTTP sessions. */
export const DEFAULT_MCP_SESSION_TABLE = 'mcp_session';
/** Default table of kept GET-stream messages. */
export const DEFAULT_MCP_SESSION_EVENT_TABLE = 'mcp_session_event';
/** Default table of the handle-keyed instances sessions follow. */
export const DEFAULT_MCP_SESSION_HANDLE_TABLE = 'mcp_session_handle';
