import { bytes, checkNumericOption } from '../checks/numeric-option.check.js';
/** Messages of the relays about replies to server-to-client requests, worded once (operators and developers read them). */

/** Error of `sendReply` before `start` or after `stop`. */
export const replyRelayNotStarted = (component: string): string => `${component} is not started: it cannot send a reply.`;

/** Default of a relay's `maxReplyBytes`: an answer to a question or a sampled message, with room to spare. */
const DEFAULT_MAX_REPLY_BYTES = 65_536;

/** Checks a relay's `maxReplyBytes` option (`checkNumericOption`), naming `component` when it is out of range. */
export function maxReplyBytesOf(component: string, value: number = DEFAULT_MAX_REPLY_BYTES): number {
  return checkNumericOption(component, 'maxReplyBytes', value, bytes());
}
