/** How the deadline scheduler polls for due timers (`McpModuleOptions.gate.deadlines`). */
export interface McpDeadlineOptions {
  /** Time between polls: a due timer fires at most this long (plus one call) after it is due, also after a restart. @default 1_000 */
  pollMs?: number;
  /** Timers one poll claims and fires; a poll that claimed a full batch polls again at once. @default 100 */
  batchSize?: number;
  /**
   * Timers of a batch fired at once (each through the gate, on its own connection of the
   * store's pool); the timers of one instance fire one after the other. On SQLite's one
   * connection they take turns anyway. @default 4
   */
  concurrency?: number;
  /** Times a timer whose firing fails (its effect threw, the store failed) is tried before it is dropped. @default 5 */
  maxAttempts?: number;
  /** Wait before the first retry; it doubles with each attempt, up to 5 minutes. @default 1_000 */
  retryMs?: number;
}

/** {@link McpDeadlineOptions} with its defaults filled. */
export type WorkflowDeadlineOptions = Required<McpDeadlineOptions>;

/** The defaults of {@link McpDeadlineOptions}. */
export const DEFAULT_DEADLINE_OPTIONS: WorkflowDeadlineOptions = {
  pollMs: 1_000,
  batchSize: 100,
  concurrency: 4,
  maxAttempts: 5,
  retryMs: 1_000,
};
