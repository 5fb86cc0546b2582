/** How long the receipts of keyed calls are kept (`McpModuleOptions.gate.idempotency`). */
export interface McpIdempotencyOptions {
  /**
   * How long a keyed call's receipt answers its repeats, in milliseconds (a `tools/call` with
   * `_meta["nestjs-mcp-fsm/idempotency-key"]`, a task's call): after it, the key is free again
   * and the receipt is swept. A task's call is carried on within a lease and a sweep of its
   * process stopping, well within it.
   * @default 86_400_000 (24 h)
   */
  retentionMs?: number;
  /** Time between sweeps of expired receipts (every process sweeps; 500 per store call, at most 20 calls). @default 60_000 */
  sweepIntervalMs?: number;
}

/** {@link McpIdempotencyOptions} with its defaults filled. */
export type WorkflowIdempotencyOptions = Required<McpIdempotencyOptions>;

/** The defaults of {@link McpIdempotencyOptions}. */
export const DEFAULT_IDEMPOTENCY_OPTIONS: WorkflowIdempotencyOptions = {
  retentionMs: 86_400_000,
  sweepIntervalMs: 60_000,
};
