import type { JSONRPCErrorResponse, JSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';

/**
 * A client's answer (a JSON-RPC result or error) to a request the server sent it on a
 * 2025-11-25 stateful HTTP session (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`), on its way from the process the answer reached to the process that asked.
 */
export interface RelayedReply {
  /** The process that sent the request: the tag in the request's id. */
  to: string;
  /** The session whose POST carried the answer. */
  sessionId: string;
  /** The principal of that session, as the receiving process checked it; absent without authentication. */
  principal?: string;
  /** The answer as the client sent it (its `id` is the request's id on the wire). */
  message: JSONRPCResultResponse | JSONRPCErrorResponse;
}

/**
 * A {@link TransitionRelay} that also carries {@link RelayedReply}s, so the answer to a
 * server-to-client request reaches the process that asked when a load balancer sent it to
 * another one. The shipped relays (Redis, PostgreSQL, outbox) all do; a custom relay without
 * these members leaves such answers unanswered (see docs/deployment.md#answers-to-server-to-client-requests).
 */
export interface SessionReplyRelay {
  /** The largest reply it carries: the length in bytes of the reply's JSON. */
  readonly maxReplyBytes: number;
  /** Sets who receives the replies that other processes send (the module sets it before `start`). */
  onReply(listener: (reply: RelayedReply) => void): void;
  /** Sends a reply to the other processes; resolves once it is handed over, rejects when it could not be. */
  sendReply(reply: RelayedReply): Promise<void>;
}

/** Whether `relay` carries replies as well as transitions. */
export function carriesReplies<T extends object>(relay: T | null | undefined): relay is T & SessionReplyRelay {
  const candidate = relay as Partial<SessionReplyRelay> | null | undefined;
  return (
    typeof candidate?.sendReply === 'function' && typeof candidate.onReply === 'function' && typeof candidate.maxReplyBytes === 'number'
  );
}
