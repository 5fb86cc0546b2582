import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** The cookie that keeps a signed-in browser's bearer token (`HttpOnly`, `SameSite=Strict`, the console's path only). */
export const CONSOLE_TOKEN_COOKIE = 'mcp_console_token';
/** The cookie of the console's CSRF token, which every form that changes something sends back as a field. */
export const CONSOLE_CSRF_COOKIE = 'mcp_console_csrf';
/** The longest token the sign-in takes: a cookie holds about 4 KB. */
export const MAX_SIGN_IN_TOKEN_LENGTH = 3_800;

const CSRF_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The cookies of a request, by name (the first of a repeated name wins). */
export function cookiesOf(req: IncomingMessage): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const equals = pair.indexOf('=');
    if (equals <= 0) continue;
    const name = pair.slice(0, equals).trim();
    if (!cookies.has(name)) cookies.set(name, pair.slice(equals + 1).trim());
  }
  return cookies;
}

/** Whether the console is served over https here, or behind a proxy that says so (`X-Forwarded-Proto`): its cookies are then `Secure`. */
function servedOverHttps(req: IncomingMessage): boolean {
  const forwarded = req.headers['x-forwarded-proto'];
  return Boolean((req.socket as TLSSocket).encrypted) || (typeof forwarded === 'string' && /(^|,)\s*https\s*(,|$)/i.test(forwarded));
}

/** A `Set-Cookie` value of the console: `HttpOnly; SameSite=Strict`, its path only, `Secure` over https; `maxAgeSeconds` 0 deletes it. */
export function consoleCookie(req: IncomingMessage, path: string, name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${servedOverHttps(req) ? '; Secure' : ''}`;
}

/** The request's CSRF token when its cookie holds a well-formed one; otherwise a new one (`fresh`), to be set. */
export function csrfTokenOf(req: IncomingMessage): { token: string; fresh: boolean } {
  const current = cookiesOf(req).get(CONSOLE_CSRF_COOKIE);
  return current && CSRF_TOKEN.test(current)
    ? { token: current, fresh: false }
    : { token: randomBytes(32).toString('base64url'), fresh: true };
}

/** Whether a form's `csrf` field is the token of the request's CSRF cookie (compared in constant time). */
export function csrfMatches(req: IncomingMessage, field: string | undefined): boolean {
  const cookie = cookiesOf(req).get(CONSOLE_CSRF_COOKIE);
  if (!cookie || !field || !CSRF_TOKEN.test(cookie) || cookie.length !== field.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(field));
}
