import type { ServerResponse } from 'node:http';
import { CONSOLE_CONTENT_SECURITY_POLICY } from './console-page.shell.js';

/** Headers of every console response: nothing cached (pages carry handles), nothing framed, no Referer leaving for another origin with a handle in it (same-origin: the forms send their Origin). */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** Answers a console page: `status`, the security headers (after `headers`, which cannot loosen them) and `html`. */
export function sendConsoleHtml(
  res: ServerResponse,
  status: number,
  html: string,
  headers: Readonly<Record<string, string | string[]>> = {},
): void {
  res.writeHead(status, { ...headers, ...CONSOLE_SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8' });
  res.end(html);
}
