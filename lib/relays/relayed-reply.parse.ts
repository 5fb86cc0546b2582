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
