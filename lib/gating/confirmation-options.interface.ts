/** The module's `inputRequests` options the gate's confirmations read, resolved (defaults filled) once. */
export interface WorkflowConfirmationOptions {
  /** How long a 2025-11-25 session waits for a person's answer, unless `@McpConfirm` says otherwise. */
  timeoutMs: number;
  /** How long a 2026-07-28 `requestState` is valid: a used confirmation is remembered this long. */
  requestStateTtlMs: number;
}

/** Injection token of the resolved {@link WorkflowConfirmationOptions}. */
export const WORKFLOW_CONFIRMATION_OPTIONS = Symbol.for('nestjs-mcp-fsm:WorkflowConfirmationOptions');
