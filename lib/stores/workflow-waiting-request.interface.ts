/**
 * Who asked for a waiting call, as the machine's guards saw them when they asked: what an
 * approved call's event carries as `event.principal` (the same fields as `McpPrincipal`).
 */
export interface WorkflowRequester {
  readonly id: string;
  readonly scopes: readonly string[];
  readonly roles: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
}

/**
 * A call that waits for a second person's approval (`@McpApproval`), stored with its instance
 * while the instance is in the approval's waiting state: what was asked, by whom, from where.
 * Approving it sends `event` with `input` to `from`; rejecting it restores `from` (or moves to
 * the approval's `rejectTo`).
 */
export interface WorkflowWaitingRequest {
  /**
   * The request's id: opaque, from the CSPRNG, new for every request. A decision names it, and
   * decides nothing when another request waits. Requests stored before it existed (0.4) have
   * none: the library reads them with one derived from the instance and `at`.
   */
  requestId: string;
  /** The tool whose call waits. */
  tool: string;
  /** The event the call sends once approved. */
  event: string;
  /** The call's arguments after the pipes: what the handler runs with once approved. */
  input: Record<string, unknown>;
  /** Principal (auth client id) of the caller who asked; `null` for an anonymous caller. */
  requestedBy: string | null;
  /** Who asked, as guards see a caller (`event.principal` of the approved event); absent for an anonymous caller (and on 0.4 rows). */
  requester?: WorkflowRequester;
  /** The instance as the call found it: what an approval moves on from and a rejection restores. */
  from: { state: string; context?: Record<string, unknown> };
  /** ISO-8601 time of the request. */
  at: string;
  /** ISO-8601 time at which it expires as a rejection (`expiresAfterMs`); absent when it never does. */
  expiresAt?: string;
  /** The MCP task the call runs as (a task-augmented call), settled when the request is decided. */
  taskId?: string;
}

/** How a waiting request was decided: a second person approved or rejected it, or the person who asked withdrew it. */
export type WorkflowApprovalVerdict = 'approved' | 'rejected' | 'withdrawn';

/** How a waiting request was decided, as the history row of its decision records it. */
export interface WorkflowApprovalNote {
  verdict: WorkflowApprovalVerdict;
  /** Principal who asked (the row's `principal` is the one who decided, or withdrew). */
  requestedBy: string | null;
  /** The request decided (absent on rows written before requests had ids). */
  requestId?: string;
  /** Why it was rejected, when the person who decided said. */
  reason?: string;
}
