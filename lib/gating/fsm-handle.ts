import { randomBytes } from 'node:crypto';

const HANDLE_PATTERN = /^[A-Za-z0-9_-]{22}$/;

/** A new handle: 128 bits from the CSPRNG, base64url (22 characters). */
export function mintHandle(): string {
  return randomBytes(16).toString('base64url');
}

/** Whether `value` has the shape of a minted handle. */
export function isWellFormedHandle(value: unknown): value is string {
  return typeof value === 'string' && HANDLE_PATTERN.test(value);
}
