import { isJSONRPCErrorResponse, isJSONRPCResultResponse } from '@modelcontextprotocol/sdk/types.js';
import type { RelayedReply } from './session-reply-relay.interface.js';

/**
 * The {@link RelayedReply} that `value` (parsed from a relay's payload) holds, or `undefined`
 * when it is no reply: a relay's channel is shared, and what arrives on it is checked before
 * any session sees it.
 */
export function toRelayedReply(value: unknown): RelayedReply | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const { to, sessionId, principal, message } = value as Record<string, unknown>;
  if (typeof to !== 'string' || typeof sessionId !== 'string' || (principal !== undefined && typeof principal !== 'string')) {
    return undefined;
  }
  if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) {
    return undefined;
  }
  return principal === undefined ? { to, sessionId, message } : { to, sessionId, principal, message };
}

/** The payload of a relay message that carries `reply` from the process `origin` (on a channel shared with transitions). */
export function replyMessage(origin: string, reply: RelayedReply): string {
  return JSON.stringify({ origin, kind: 'reply', reply });
}

/**
 * Hands the reply a parsed relay message carries to `listener` (a malformed one to nobody);
 * whether the message was a reply at all (a transition otherwise).
 */
export function handReply(message: { kind?: unknown; reply?: unknown }, listener?: (reply: RelayedReply) => void): boolean {
  if (message.kind !== 'reply') {
    return false;
  }
  const reply = toRelayedReply(message.reply);
  if (reply) listener?.(reply);
  return true;
}
