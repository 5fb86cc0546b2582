import { IntrinsicException } from '@nestjs/common';
import type { McpStateValue } from '../machines/state-value.js';

/**
 * Why a gated call was refused before its handler ran (or why its transition was not
 * stored). A gate subclass may refuse with a code of its own (any other string).
 */
export type WorkflowRefusalCode =
  | 'FORBIDDEN'
  | 'BUSY'
  | 'UNKNOWN_HANDLE'
  | 'UNKNOWN_STATE'
  | 'GUARD_REJECTED'
  | 'STATE_UNAVAILABLE'
  | 'NO_SESSION'
  | 'LEASE_EXPIRED'
  | 'DECLINED'
  | 'CONFIRMATION_REQUIRED'
  | 'SELF_APPROVAL'
  | 'STALE_REQUEST'
  | 'NOT_APPROVER'
  | 'IDEMPOTENCY_KEY_REUSED'
  | (string & {});

/** What a refusal carries to the client, in `_meta["nestjs-mcp-fsm/error"]` (or JSON-RPC `data`). */
export interface WorkflowRefusalData {
  code: WorkflowRefusalCode;
  tool: string;
  machine: string;
  /** The instance's state (an object while parallel regions are active); `null` before it exists. */
  state: McpStateValue | null;
  allowedTools: string[];
  /** `STALE_REQUEST`: the `requestId` of the request that waits now (absent when none does). */
  waitingRequestId?: string;
  /**
   * Id of this refusal, written in the server's log line about it (with the trace id), so a
   * refusal a client reports can be found. Set when the call is answered.
   */
  errorId?: string;
}

/**
 * A gated refusal; the call handler turns it into an `isError` result or a JSON-RPC error.
 * Intrinsic: Nest does not log it as an application error (it is an expected outcome).
 */
export class WorkflowRefusal extends IntrinsicException {
  constructor(
    message: string,
    readonly data: WorkflowRefusalData,
  ) {
    super(message);
    this.name = 'WorkflowRefusal';
  }
}
