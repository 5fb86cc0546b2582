/**
 * Which optional features one McpModule runs, decided once at startup from its resolved options,
 * its store's capabilities, its machines and the app's decorated handlers. A feature that is not
 * used has no provider built: nothing of it is constructed, and no timer of it ticks.
 */
export interface McpFeatureUse {
  /** The store keeps refused calls (`attempts` on the store): the attempt recorder. */
  readonly attempts: boolean;
  /** `retention.finishedMs` or `retention.idleHandleMs` is set: the retention sweeper. */
  readonly retention: boolean;
  /** The store keeps the receipts of keyed calls: the receipt sweeper. */
  readonly receipts: boolean;
  /** A machine has `after` transitions, an `@McpApproval` expires, or an `@McpDeadline` method exists: the deadline scheduler. */
  readonly deadlines: boolean;
  /** A tool runs as a task (`@McpTool({ task })`) or waits for an approval (`@McpApproval`): the task sweeper and resumer. */
  readonly tasks: boolean;
}

/** Injection token of the module's {@link McpFeatureUse}. */
export const MCP_FEATURE_USE = Symbol.for('nestjs-mcp-fsm:McpFeatureUse');
