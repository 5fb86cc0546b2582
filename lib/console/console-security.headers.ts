import { CONSOLE_CONTENT_SECURITY_POLICY } from './console-page.shell.js';

/** Headers of every console response: nothing cached (pages carry handles), nothing framed, no Referer leaving with a handle in it. */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
  'Cache-Control': 'no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};
