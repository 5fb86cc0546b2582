import { cutSessionId } from '../client-input/client-input.echo.js';

/** Messages about clients' answers to server-to-client requests on stateful HTTP sessions, worded once (operators and clients read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Log line (at most once a minute): an answer for another process arrived, and no relay carries it there. */
export const replyWithoutRelay = (sessionId: string, relayed: boolean): string =>
  `An answer to a request that another process sent on session ${cutSessionId(sessionId)} reached this process and is dropped: ${
    relayed ? 'the transitionRelay does not carry replies' : 'no transitionRelay is configured'
  }. The request there waits until its timeout. Use a relay of the module (RedisTransitionRelay, PostgresTransitionRelay, OutboxTransitionRelay) or route each session to one process; see docs/deployment.md#answers-to-server-to-client-requests.`;

/** Log line: an answer named a request that waits on another session or for another principal; its content is not logged. */
export const replyForeignSession = (requestId: string, sessionId: string): string =>
  `Dropped an answer to request ${requestId} that arrived on session ${cutSessionId(sessionId)}: the request was sent on another session or to another principal. The request waits on.`;

/** Debug line: an answer for a request that no longer waits (answered, timed out, cancelled, or its process restarted). */
export const replyNobodyWaits = (requestId: string, sessionId: string): string =>
  `Dropped an answer to request ${requestId} on session ${cutSessionId(sessionId)}: nothing waits for it any longer.`;

/** Reply (HTTP 413) to a POST whose answer is larger than the relay carries; log line of the same. */
export const replyTooLarge = (bytes: number, maxBytes: number): string =>
  `The answer is ${bytes} bytes; the transition relay carries answers of at most ${maxBytes} bytes to the process that asked (maxReplyBytes of the relay).`;

/** Reply (HTTP 503) to a POST whose answer the relay could not take; log line of the same, with the reason. */
export const replyRelayFailed = (error?: unknown): string =>
  error === undefined
    ? 'The answer could not be relayed to the process that asked; send it again.'
    : `Could not relay an answer to the process that asked: ${reasonOf(error)}`;
