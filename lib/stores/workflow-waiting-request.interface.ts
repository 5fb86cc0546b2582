/**
 * A call that waits for a second person's approval (`@McpApproval`), stored with its instance
 * while the instance is in the approval's waiting state: what was asked, by whom, from where.
 * Approving it sends `event` with `input` to `from`; rejecting it restores `from`.
 */
export interface WorkflowWaitingRequest {
  /** The tool whose call waits. */
  tool: string;
  /** The event the call sends once approved. */
  event: string;
  /** The call's arguments after the pipes: what the handler runs with once approved. */
  input: Record<string, unknown>;
  /** Principal (auth client id) of the caller who asked; `null` for an anonymous caller. */
  requestedBy: string | null;
  /** The instance as the call found it: what an approval moves on from and a rejection restores. */
  from: { state: string; context?: Record<string, unknown> };
  /** ISO-8601 time of the request. */
  at: string;
  /** The MCP task the call runs as (a task-augmented call), settled when the request is decided. */
  taskId?: string;
}

/** How a waiting request was decided, as the history row of its decision records it. */
export interface WorkflowApprovalNote {
  verdict: 'approved' | 'rejected';
  /** Principal who asked (the row's `principal` is the one who decided). */
  requestedBy: string | null;
  /** Why it was rejected, when the person who decided said. */
  reason?: string;
}
