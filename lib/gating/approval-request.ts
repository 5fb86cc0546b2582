import { createHash, randomBytes } from 'node:crypto';
import type { McpPrincipal } from '../machines/machine-access.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';

/** The argument of a decision tool that names the waiting request it decides. */
export const REQUEST_ID_KEY = 'requestId';

/** The longest `requestId` a decision takes (new ids have 24 characters). */
export const MAX_REQUEST_ID_LENGTH = 64;

/** What a principal is compared without: white space, control and format characters, and every other code point that shows nothing. */
const UNSEEN = /[\p{White_Space}\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/** Random bytes of a new request id: 144 bits, 24 base64url characters. */
const REQUEST_ID_BYTES = 18;

/** A new request id, from the CSPRNG. */
export function newRequestId(): string {
  return randomBytes(REQUEST_ID_BYTES).toString('base64url');
}

/**
 * The request waiting on an instance (stored under `storeKey`), with its id. A request stored
 * before requests had ids (0.4) is read with one derived from the instance and the time it was
 * asked: the same on every read, so a decision can name it, and never one a new request has.
 */
export function waitingRequestOf(
  snapshot: Pick<WorkflowSnapshot, 'waiting'> | undefined,
  storeKey: string,
): WorkflowWaitingRequest | undefined {
  const waiting = snapshot?.waiting;
  if (!waiting) return undefined;
  if (typeof waiting.requestId === 'string' && waiting.requestId !== '') return waiting;
  const derived = createHash('sha256').update(`${storeKey}\n${waiting.at}`).digest('base64url').slice(0, 24);
  return { ...waiting, requestId: `r04-${derived}` };
}

/** Who asked for the request, as the approved event's `event.principal`: as stored, or (a 0.4 request) their id alone; `undefined` when anonymous. */
export function requesterOf(waiting: WorkflowWaitingRequest): McpPrincipal | undefined {
  if (waiting.requester) {
    const { id, scopes, roles, claims } = waiting.requester;
    return Object.freeze({
      id,
      scopes: Object.freeze([...scopes]),
      roles: Object.freeze([...roles]),
      claims: Object.freeze({ ...claims }),
    });
  }
  return waiting.requestedBy === null ? undefined : Object.freeze({ id: waiting.requestedBy, scopes: [], roles: [], claims: {} });
}

/**
 * A principal as the four-eyes rule tells people apart: compatibility-normalized (NFKC), without
 * the characters that show nothing (spaces, controls, zero-width and format characters),
 * case-folded. Principals that differ only there are one person to the rule: an identity provider
 * that lets one person hold `"alice"` and `"Alice "` cannot make her her own approver. Look-alike
 * letters of other scripts are the provider's to refuse.
 */
export function personOf(principal: string): string {
  return principal.normalize('NFKC').replace(UNSEEN, '').toUpperCase().toLowerCase().normalize('NFKC');
}

/**
 * Whether `principal` is the person who asked for `waiting`, to the four-eyes rule: however their
 * principal is spelled ({@link personOf}). Never an anonymous caller, nor anyone of an anonymous
 * request. A withdrawal asks more: the very principal that asked.
 */
export function isRequester(principal: string | undefined, waiting: Pick<WorkflowWaitingRequest, 'requestedBy'>): boolean {
  return principal !== undefined && waiting.requestedBy !== null && personOf(principal) === personOf(waiting.requestedBy);
}
