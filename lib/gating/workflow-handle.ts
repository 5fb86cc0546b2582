import { randomBytes } from 'node:crypto';

/** The length of every handle: 128 bits, base64url. */
export const HANDLE_LENGTH = 22;

const HANDLE_PATTERN = new RegExp(`^[A-Za-z0-9_-]{${HANDLE_LENGTH}}$`);

/** A new handle: 128 bits from the CSPRNG, base64url ({@link HANDLE_LENGTH} characters). */
export function mintHandle(): string {
  return randomBytes(16).toString('base64url');
}

/** Whether `value` has the shape of a minted handle. */
export function isWellFormedHandle(value: unknown): value is string {
  return typeof value === 'string' && HANDLE_PATTERN.test(value);
}
