import { Inject, Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_AUTH_OPTIONS, type McpResolvedAuthOptions } from '../auth/auth-options.interface.js';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from './console-options.interface.js';
import type { McpNodeRequest } from '../transports/mcp-body.reader.js';
import { McpAuthenticator } from '../auth/mcp.authenticator.js';
import * as messages from './console.messages.js';
import {
  CONSOLE_CSRF_COOKIE,
  CONSOLE_TOKEN_COOKIE,
  consoleCookie,
  cookiesOf,
  csrfMatches,
  csrfTokenOf,
  MAX_SIGN_IN_TOKEN_LENGTH,
} from './console-cookies.js';
import { CONSOLE_SECURITY_HEADERS, sendConsoleHtml } from './console-security.headers.js';
import { renderSignInPage } from './console-sign-in.page.js';

/** The largest sign-in or sign-out form read. */
const MAX_FORM_BYTES = 16 * 1024;

/** Why a console request may not see a page: its status, message and challenge headers. */
export interface ConsoleRefusal {
  status: number;
  message: string;
  headers?: Readonly<Record<string, string>>;
}

/** What a page of a request shows in its header, and the cookie it sets, for a browser of the sign-in. */
export interface ConsoleBrowser {
  /** The sign-out form, when the request came with the token cookie. */
  signOut?: { root: string; csrf: string };
  /** `Set-Cookie` headers the response carries (a new CSRF token). */
  cookies: string[];
  /** The sign-in the request came with: a digest of its token (signing out ends the streams of the same sign-in). */
  signIn?: string;
  /** When the sign-in cookie expires, epoch ms (a cookie of an earlier version does not say). */
  expiresAt?: number;
}

/**
 * The console's browser sign-in (`console.signInMaxAgeMs`): a form that takes a bearer token
 * and keeps it in an `HttpOnly; SameSite=Strict` cookie of the console's path, read back as the
 * `Authorization` header of each console request (so the same verifier checks it: signature,
 * issuer, audience, expiry, scopes, `authorize`); a sign-out; a CSRF token (double submit: an
 * `HttpOnly` cookie and a form field) on both forms. The token is never written into a page or
 * a log. Served only when `auth` verifies bearer tokens itself.
 */
@Injectable()
export class WorkflowConsoleSignIn {
  /** Whether the sign-in is served. */
  readonly enabled: boolean;

  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly options: McpResolvedConsoleOptions | null,
    @Inject(MCP_AUTH_OPTIONS) auth: McpResolvedAuthOptions,
    private readonly authenticator: McpAuthenticator,
  ) {
    this.enabled = Boolean(options && options.signInMaxAgeMs > 0 && auth.mode !== 'request');
  }

  /** Whether `pathname` (below the console) is the sign-in or the sign-out. */
  isFormPath(pathname: string): boolean {
    if (!this.enabled) return false;
    const root = this.options!.path.toLowerCase();
    const path = pathname.toLowerCase();
    return path === `${root}/sign-in` || path === `${root}/sign-out`;
  }

  /**
   * Lets the token cookie stand for the `Authorization` header of a request that has none (a
   * browser of the sign-in); answers what its page shows and sets.
   */
  adopt(req: IncomingMessage): ConsoleBrowser {
    if (!this.enabled) return { cookies: [] };
    const signedIn = signInOf(cookiesOf(req).get(CONSOLE_TOKEN_COOKIE));
    if (!signedIn || req.headers.authorization !== undefined) return { cookies: [] };
    req.headers.authorization = `Bearer ${signedIn.token}`;
    const csrf = csrfTokenOf(req);
    return {
      signOut: { root: this.options!.path, csrf: csrf.token },
      cookies: csrf.fresh ? [this.csrfCookie(req, csrf.token)] : [],
      signIn: signInDigest(signedIn.token),
      ...(signedIn.expiresAt === undefined ? {} : { expiresAt: signedIn.expiresAt }),
    };
  }

  /** The sign-in page (GET), with a CSRF token (set as a cookie when the browser has none). */
  page(req: IncomingMessage, res: ServerResponse, status = 200, error?: string): void {
    const csrf = csrfTokenOf(req);
    const signedIn = cookiesOf(req).has(CONSOLE_TOKEN_COOKIE);
    const html = renderSignInPage({ root: this.options!.path, csrf: csrf.token, error, signedIn, maxAgeMs: this.options!.signInMaxAgeMs });
    const headers: Record<string, string[]> = csrf.fresh ? { 'Set-Cookie': [this.csrfCookie(req, csrf.token)] } : {};
    this.send(res, status, html, headers);
  }

  /**
   * A POST of the sign-in or sign-out form. Both need the CSRF token; the sign-in checks the
   * token with `authorize` (the console's own check of a request) and answers its refusal on
   * the form, or sets the cookie and sends the browser to the list.
   */
  async post(
    req: McpNodeRequest,
    res: ServerResponse,
    authorize: (req: McpNodeRequest) => Promise<ConsoleRefusal | undefined>,
    signedOut: (signIn: string) => void,
  ): Promise<void> {
    const form = await readForm(req);
    if (!form) return this.page(req, res, 413, messages.signInFormTooLarge());
    if (!csrfMatches(req, form.get('csrf') ?? undefined)) return this.page(req, res, 403, messages.csrfRefused());
    const root = this.options!.path;
    if (new URL(req.url ?? '/', 'http://console.invalid').pathname.toLowerCase().endsWith('/sign-out')) {
      const signedIn = signInOf(cookiesOf(req).get(CONSOLE_TOKEN_COOKIE));
      if (signedIn) signedOut(signInDigest(signedIn.token));
      return this.redirect(res, `${root}/sign-in`, [consoleCookie(req, root, CONSOLE_TOKEN_COOKIE, '', 0)]);
    }
    const token = form.get('token')?.trim() ?? '';
    if (!token || token.length > MAX_SIGN_IN_TOKEN_LENGTH || /[\s;,]/.test(token)) {
      return this.page(req, res, 400, messages.signInTokenInvalid(MAX_SIGN_IN_TOKEN_LENGTH));
    }
    req.headers.authorization = `Bearer ${token}`;
    const refusal = await authorize(req);
    if (refusal) return this.page(req, res, refusal.status, refusal.message);
    const expiresAt = req.auth?.expiresAt;
    const untilExpiry = typeof expiresAt === 'number' ? expiresAt - Math.floor(Date.now() / 1000) : Infinity;
    const maxAge = Math.max(0, Math.min(Math.floor(this.options!.signInMaxAgeMs / 1000), untilExpiry));
    const value = `${Math.floor(Date.now() / 1000) + maxAge}${EXPIRY_SEPARATOR}${encodeURIComponent(token)}`;
    this.redirect(res, root, [consoleCookie(req, root, CONSOLE_TOKEN_COOKIE, value, maxAge)]);
  }

  private csrfCookie(req: IncomingMessage, token: string): string {
    return consoleCookie(req, this.options!.path, CONSOLE_CSRF_COOKIE, token, 86_400);
  }

  private redirect(res: ServerResponse, location: string, cookies: string[]): void {
    res.writeHead(303, { ...CONSOLE_SECURITY_HEADERS, Location: location, 'Set-Cookie': cookies });
    res.end();
  }

  private send(res: ServerResponse, status: number, html: string, headers: Record<string, string | string[]>): void {
    sendConsoleHtml(res, status, html, headers);
  }
}

/** What separates the sign-in's expiry (epoch seconds) from the token in the cookie's value. */
const EXPIRY_SEPARATOR = '!';

/**
 * The token a cookie value holds and when the sign-in expires (`<epoch seconds>!<token>`; a
 * value of an earlier version holds the token alone); `undefined` for none, for a sign-in that
 * expired, or for a value this console did not write.
 */
function signInOf(value: string | undefined): { token: string; expiresAt?: number } | undefined {
  if (!value) return undefined;
  const dated = /^(\d{1,12})!(.+)$/.exec(value);
  const expiresAt = dated ? Number(dated[1]) * 1000 : undefined;
  if (expiresAt !== undefined && expiresAt <= Date.now()) return undefined;
  try {
    const token = decodeURIComponent(dated ? dated[2] : value);
    if (token.length > MAX_SIGN_IN_TOKEN_LENGTH || /[\s;,]/.test(token)) return undefined;
    return expiresAt === undefined ? { token } : { token, expiresAt };
  } catch {
    return undefined;
  }
}

/** A sign-in's name among the streams: a digest of its token (the token itself stays out of memory maps). */
function signInDigest(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** The urlencoded form of a POST, read here (at most {@link MAX_FORM_BYTES}); `undefined` when it is larger. */
export async function readForm(req: McpNodeRequest): Promise<URLSearchParams | undefined> {
  if (typeof req.body === 'object' && req.body !== null && !Buffer.isBuffer(req.body)) {
    return new URLSearchParams(req.body as Record<string, string>);
  }
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
