/** Messages of the relays about replies to server-to-client requests, worded once (operators and developers read them). */

/** Bootstrap error: a relay's `maxReplyBytes` that is not a positive whole number. */
export const replyInvalidMaxBytes = (component: string, value: unknown): string =>
  `${component}: option maxReplyBytes must be a positive integer; got ${String(value)}.`;

/** Error of `sendReply` before `start` or after `stop`. */
export const replyRelayNotStarted = (component: string): string => `${component} is not started: it cannot send a reply.`;

/** Default of a relay's `maxReplyBytes`: an answer to a question or a sampled message, with room to spare. */
const DEFAULT_MAX_REPLY_BYTES = 65_536;

/** Checks a relay's `maxReplyBytes` option, naming `component` when it is not a positive whole number. */
export function maxReplyBytesOf(component: string, value: number = DEFAULT_MAX_REPLY_BYTES): number {
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(replyInvalidMaxBytes(component, value));
  return value;
}
