import { createHmac } from 'node:crypto';

/** Hex characters of `workflow.instance.id` kept: 128 bits of the HMAC. */
const DIGEST_HEX_LENGTH = 32;

/**
 * `workflow.instance.id`: a keyed hash (HMAC-SHA-256) of a workflow's store key, so one
 * instance has one id across its spans, while the handle in the key (a bearer capability: who
 * holds it may act on the payment) or the session id never reaches a telemetry backend.
 */
export function instanceDigest(key: Uint8Array | string, storeKey: string): string {
  return createHmac('sha256', key).update(storeKey).digest('hex').slice(0, DIGEST_HEX_LENGTH);
}
