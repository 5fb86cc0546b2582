/** Options of `TypeOrmFsmStateStore` (and of `createWorkflowStateMigration`, which uses the table names). */
export interface TypeOrmFsmStateStoreOptions {
  /** Table of instance states (optionally `schema.table`). @default 'mcp_fsm_state' */
  tableName?: string;
  /** Table of transition history (optionally `schema.table`). @default 'mcp_fsm_transition' */
  historyTableName?: string;
  /** Write one history row per committed transition that carries a record. @default false */
  history?: boolean;
  /** Table of refused and declined calls (optionally `schema.table`). @default 'mcp_fsm_attempt' */
  attemptTableName?: string;
  /**
   * Keep the refused and declined calls of each instance (tool, refusal code and message,
   * principal, time, and the arguments cut as error texts cut client values), for the workflow
   * console. Needs the attempt table (`CreateMcpFsmAttempt1765843200000`, then
   * `AddMcpFsmAttemptDetails1766880000000`). @default false
   */
  attempts?: boolean;
  /** Table of durable timers, the deadlines of `after` transitions (optionally `schema.table`). @default 'mcp_fsm_timer' */
  timerTableName?: string;
  /**
   * Table of the receipts of outside events (`McpWorkflowService.send` with an idempotency key;
   * optionally `schema.table`); needs `CreateMcpFsmEvent1766620800000`. @default 'mcp_fsm_event'
   */
  eventTableName?: string;
  /** Attempts kept per instance (1 to 10 000); older ones are deleted as new ones come. @default 50 */
  maxAttemptsPerInstance?: number;
  /**
   * Time limit, in milliseconds, of every store operation (waiting for a connection included)
   * and of every transaction from its BEGIN to its COMMIT: a transactional call's row lock,
   * handler and commit must finish within it. An operation that runs out of time fails with
   * an error naming it and the limit (the gate answers STATE_UNAVAILABLE) and its connection
   * is closed, not returned to the pool. Transactions also get it as a server-side limit on
   * idle transactions and statements, so the server rolls back the transaction of a client it
   * can no longer reach; MySQL and MariaDB count it in whole seconds, rounded up.
   * @default 5000
   */
  timeoutMs?: number;
}

/** Default table of instance states. */
export const DEFAULT_WORKFLOW_STATE_TABLE = 'mcp_fsm_state';
/** Default table of transition history. */
export const DEFAULT_WORKFLOW_TRANSITION_TABLE = 'mcp_fsm_transition';
/** Default table of refused and declined calls. */
export const DEFAULT_WORKFLOW_ATTEMPT_TABLE = 'mcp_fsm_attempt';
/** Default table of durable timers. */
export const DEFAULT_WORKFLOW_TIMER_TABLE = 'mcp_fsm_timer';
/** Default table of the receipts of outside events. */
export const DEFAULT_WORKFLOW_EVENT_TABLE = 'mcp_fsm_event';
/** Default number of attempts kept per instance. */
export const DEFAULT_MAX_ATTEMPTS_PER_INSTANCE = 50;
/** The most attempts a store may be told to keep per instance (what a console page can show). */
export const MAX_ATTEMPTS_PER_INSTANCE = 10_000;
/** Default time limit of a store operation and of a transaction (`timeoutMs`). */
export const DEFAULT_STORE_TIMEOUT_MS = 5000;
