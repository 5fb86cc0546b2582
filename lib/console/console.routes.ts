import { HttpException, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { Server as HttpServer, ServerResponse } from 'node:http';
import { MCP_HTTP_OPTIONS, type McpResolvedHttpOptions } from '../server/http-options.interface.js';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from './console-options.interface.js';
import { storeCannotRead } from '../stores/stores.messages.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { toNodeExchange } from '../transports/framework-exchange.js';
import { rejectHostOrOrigin } from '../transports/host-origin.validator.js';
import type { McpNodeRequest } from '../transports/mcp-body.reader.js';
import { interceptRequests } from '../transports/request-interceptor.js';
import { McpAuthenticator } from '../auth/mcp.authenticator.js';
import * as messages from './console.messages.js';
import { WorkflowConsoleData } from './console-data.js';
import { WorkflowConsoleStreams } from './console.streams.js';
import { escapeHtml } from './console-html.js';
import { renderInstancePage } from './console-instance.page.js';
import { renderListPage } from './console-list.page.js';
import { renderPage } from './console-page.shell.js';
import { CONSOLE_SECURITY_HEADERS, sendConsoleHtml } from './console-security.headers.js';
import { type ConsoleBrowser, type ConsoleRefusal, WorkflowConsoleSignIn } from './console-sign-in.js';
import { signInHint } from './console.messages.js';
import { WorkflowConsoleActions } from './console-actions.js';
import { WorkflowConsoleInbox } from './console-inbox.js';
import type { ConsoleNav } from './console-page.shell.js';
import { consoleViewerOf, type ConsoleViewer } from './console-viewer.js';
import { isScopeToken } from '../access/access-requirement.js';

/** The part of a Fastify instance the console registers its GET routes on. */
interface FastifyGetRoutes {
  route(route: { method: string; url: string; handler: (request: unknown, reply: unknown) => void }): unknown;
}

const SECURITY_HEADERS = CONSOLE_SECURITY_HEADERS;
const STREAM_RETRY_AFTER_S = 2;
/** The approvals inbox's segment below the console's path. */
const INBOX = 'approvals';

/**
 * Serves the workflow console (`McpModuleOptions.console`) from the app's own HTTP server: GET
 * routes on Express or Fastify, behind the app's middleware and hooks, or, with
 * `transports.http.direct`, straight from Node ahead of the framework, as the MCP path is. Every
 * request passes the Host/Origin check of `transports.http` (DNS rebinding), then the module's
 * `auth` (a bearer token verified, or the caller your middleware found), then `console.authorize`.
 */
@Injectable()
export class WorkflowConsoleRoutes implements OnModuleInit {
  private readonly logger = new Logger('McpConsole');

  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly options: McpResolvedConsoleOptions | null,
    @Inject(MCP_HTTP_OPTIONS) private readonly http: McpResolvedHttpOptions | null,
    private readonly adapterHost: HttpAdapterHost,
    private readonly store: FsmStoreAdapter,
    private readonly data: WorkflowConsoleData,
    private readonly streams: WorkflowConsoleStreams,
    private readonly authenticator: McpAuthenticator,
    private readonly signIn: WorkflowConsoleSignIn,
    private readonly actions: WorkflowConsoleActions,
    private readonly inbox: WorkflowConsoleInbox,
  ) {}

  onModuleInit(): void {
    const { options } = this;
    const adapter = this.adapterHost.httpAdapter;
    if (!options || !adapter) return;
    if (!/^\/[^?#]*[^/?#]$/.test(options.path)) throw new Error(messages.invalidConsolePath(options.path));
    for (const name of ['adminScope', 'decideScope', 'endScope', 'sendScope'] as const) {
      const scope = options[name];
      if (scope !== undefined && (typeof scope !== 'string' || !isScopeToken(scope)))
        throw new Error(messages.invalidConsoleScope(name, scope));
    }
    if (!this.store.supports.read) throw new Error(storeCannotRead(this.store.name));
    this.actions.check();
    const { path } = options;
    const routes = [path, `${path}/events`, `${path}/approvals`, `${path}/:machine/:instance`, `${path}/:machine/:instance/events`];
    if (this.signIn.enabled) {
      routes.push(`${path}/sign-in`);
      // The forms are read here, ahead of the framework (whatever body parsers the app has), on every HTTP adapter.
      interceptRequests(
        adapter.getHttpServer() as HttpServer,
        (url) => this.isFormUrl(url),
        (req, res, passOn) => (req.method === 'POST' ? this.postSafely(req, res) : passOn()),
      );
    }
    if (this.http?.direct) {
      interceptRequests(
        adapter.getHttpServer() as HttpServer,
        (url) => this.isConsoleUrl(url),
        (req, res, passOn) => (req.method === 'GET' || req.method === 'HEAD' ? this.serveSafely(req, res) : passOn()),
      );
    } else if (adapter.getType() === 'fastify') {
      const fastify = adapter.getInstance<FastifyGetRoutes>();
      for (const url of routes) fastify.route({ method: 'GET', url, handler: (request, reply) => this.serveRoute(request, reply) });
    } else {
      for (const url of routes) adapter.get(url, (req: McpNodeRequest, res: ServerResponse) => this.serveRoute(req, res));
    }
    this.logger.log(messages.consoleServed(path));
  }

  private serveRoute(request: unknown, response: unknown): void {
    const { req, res } = toNodeExchange(request, response);
    this.serveSafely(req, res);
  }

  private postSafely(req: McpNodeRequest, res: ServerResponse): void {
    const pathname = new URL(req.url ?? '/', 'http://console.invalid').pathname;
    if (this.signIn.isFormPath(pathname)) {
      const authorize = async (request: McpNodeRequest) => {
        const access = await this.access(request);
        return 'refusal' in access ? access.refusal : undefined;
      };
      return this.safely(req, res, () => this.signIn.post(req, res, authorize, (signIn) => this.streams.signedOut(signIn)));
    }
    this.safely(req, res, async () => {
      const browser = this.signIn.adopt(req);
      const access = await this.access(req);
      if ('refusal' in access) return this.refused(res, access.refusal);
      const segments = this.segmentsOf(pathname) ?? [];
      const nav = this.nav(browser);
      if (segments.length === 1 && segments[0] === INBOX && this.inbox.enabled())
        return this.inbox.decide(req, res, access.viewer, browser, nav);
      return this.actions.act(req, res, { machine: segments[0], instance: segments[1] }, access.viewer, browser, nav);
    });
  }

  /** Whether `url` is a form this console reads: the sign-in, the sign-out, a decision in the inbox, an operator's action. */
  private isFormUrl(url: string): boolean {
    const pathname = url.split('?')[0];
    if (this.signIn.isFormPath(pathname)) return true;
    const segments = this.segmentsOf(pathname);
    return (segments?.length === 1 && segments[0] === INBOX) || (segments?.length === 3 && segments[2] === 'actions');
  }

  private serveSafely(req: McpNodeRequest, res: ServerResponse): void {
    this.safely(req, res, () => this.serve(req, res));
  }

  /**
   * Runs `handle` for a request that passes the Host/Origin check of `transports.http` (403
   * otherwise); a failure is logged and answered 500, or ends the response it interrupted.
   */
  private safely(req: McpNodeRequest, res: ServerResponse, handle: () => Promise<void>): void {
    const rejection = rejectHostOrOrigin(req, this.http ?? {});
    if (rejection) return this.page(res, 403, rejection);
    handle().catch((error: unknown) => {
      this.logger.error(messages.consoleFailedLog(error), error instanceof Error ? error.stack : undefined);
      if (!res.headersSent) this.page(res, 500, messages.consoleFailed());
      else res.destroy();
    });
  }

  private async serve(req: McpNodeRequest, res: ServerResponse): Promise<void> {
    const options = this.options!;
    const url = new URL(req.url ?? '/', 'http://console.invalid');
    if (this.signIn.isFormPath(url.pathname) && url.pathname.toLowerCase().endsWith('/sign-in')) return this.signIn.page(req, res);
    const browser = this.signIn.adopt(req);
    const access = await this.access(req);
    if ('refusal' in access) return this.refused(res, access.refusal);
    const { viewer } = access;
    const segments = this.segmentsOf(url.pathname);
    if (segments === undefined) return this.page(res, 404, messages.pageNotFound());
    const query = (name: string) => url.searchParams.get(name) || undefined;
    const nav = this.nav(browser);
    if (segments.length === 0) {
      const view = await this.data.list(
        { machine: query('machine'), state: query('state'), after: query('after'), search: query('q') },
        viewer,
      );
      const html = renderListPage(view, {
        root: options.path,
        machines: this.data.catalog.machines(),
        pageSize: options.pageSize,
        now: Date.now(),
        dueSoonMs: options.dueSoonMs,
        nav,
      });
      return this.html(res, view.ok ? 200 : 400, html, cookieHeaders(browser));
    }
    if (segments.length === 1 && segments[0] === 'events') {
      return this.stream(req, res, { list: true, machine: query('machine') }, viewer, browser);
    }
    if (segments.length === 1 && segments[0] === INBOX) {
      return this.inbox.enabled() ? this.inbox.page(res, viewer, browser, nav) : this.page(res, 404, messages.pageNotFound());
    }
    const machine = this.data.catalog.machine(segments[0]);
    if (!machine || segments.length > 3 || (segments.length === 3 && segments[2] !== 'events')) {
      return this.page(res, 404, machine ? messages.pageNotFound() : messages.unknownMachine(segments[0]));
    }
    if (segments.length === 3) {
      const visible = await this.data.visible(machine, segments[1], viewer);
      if (!visible) return this.page(res, 404, messages.instanceNotFound(machine.id));
      return this.stream(req, res, { list: false, key: visible.key }, viewer, browser);
    }
    const view = await this.data.instance(machine, segments[1], viewer);
    if (!view) return this.page(res, 404, messages.instanceNotFound(machine.id));
    const html = renderInstancePage(view, {
      root: options.path,
      now: Date.now(),
      nav,
      inbox: nav.inbox,
      actions: this.actions.offered(view, viewer, browser),
    });
    return this.html(res, view.snapshot ? 200 : 404, html, cookieHeaders(browser));
  }

  /** What a page's header offers `browser`. */
  private nav(browser: ConsoleBrowser): ConsoleNav {
    return { inbox: this.inbox.enabled(), ...(browser.signOut && { signOut: browser.signOut }) };
  }

  /**
   * Who the request is, as the console sees it (the module's `auth` and `console.scopes` first,
   * with their challenge headers, then `console.authorize`), or why it may not see the console.
   */
  private async access(req: McpNodeRequest): Promise<{ viewer: ConsoleViewer } | { refusal: ConsoleRefusal }> {
    const options = this.options!;
    try {
      const authorization = await this.authenticator.authorize(req, { scopes: options.scopes });
      if (!authorization.ok) return { refusal: authorization };
      if ((await options.authorize(req)) !== true) return { refusal: { status: 403, message: messages.notAuthorized() } };
      return { viewer: consoleViewerOf(authorization.authInfo, authorization.grants, options.adminScope) };
    } catch (error) {
      if (error instanceof HttpException) return { refusal: { status: error.getStatus(), message: error.message } };
      throw error;
    }
  }

  private refused(res: ServerResponse, refusal: ConsoleRefusal): void {
    this.page(res, refusal.status, refusal.message, refusal.headers, refusal.status === 401 && this.signIn.enabled);
  }

  private stream(
    req: McpNodeRequest,
    res: ServerResponse,
    scope: Parameters<WorkflowConsoleStreams['open']>[1],
    viewer: ConsoleViewer,
    browser: ConsoleBrowser,
  ): void {
    if (req.method === 'HEAD') {
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8' });
      return void res.end();
    }
    const refusal = this.streams.refusal();
    if (refusal) {
      res.setHeader('Retry-After', String(STREAM_RETRY_AFTER_S));
      return this.page(res, 503, refusal === 'full' ? messages.tooManyStreams(this.options!.maxStreams) : messages.consoleShuttingDown());
    }
    const ends = [viewer.expiresAt === undefined ? undefined : viewer.expiresAt * 1000, browser.expiresAt].filter((at) => at !== undefined);
    const opener = { viewer, ...(ends.length && { endsAt: Math.min(...ends) }), ...(browser.signIn && { signIn: browser.signIn }) };
    this.streams.open(res, scope, opener, SECURITY_HEADERS);
  }

  /** The path's segments below the console's path (decoded); `undefined` for a path outside it. */
  private segmentsOf(pathname: string): string[] | undefined {
    const root = this.options!.path;
    if (pathname.slice(0, root.length).toLowerCase() !== root.toLowerCase()) return undefined;
    const rest = pathname.slice(root.length);
    if (rest !== '' && !rest.startsWith('/')) return undefined;
    try {
      return rest
        .split('/')
        .filter((segment, index, all) => !(segment === '' && (index === 0 || index === all.length - 1)))
        .map((segment) => decodeURIComponent(segment));
    } catch {
      return undefined;
    }
  }

  private isConsoleUrl(url: string): boolean {
    const query = url.indexOf('?');
    return this.segmentsOf(query === -1 ? url : url.slice(0, query)) !== undefined;
  }

  private page(res: ServerResponse, status: number, message: string, headers: Readonly<Record<string, string>> = {}, signIn = false): void {
    const root = this.options!.path;
    const main = `<h1>${escapeHtml(status === 404 ? 'Not found' : status === 403 || status === 401 ? 'Not allowed' : 'Cannot show this page')}</h1>
<p class="notice" role="alert">${escapeHtml(message)}</p>
${signIn ? `<p><a id="sign-in-link" href="${escapeHtml(`${root}/sign-in`)}">${escapeHtml(signInHint())}</a></p>` : ''}
<p><a href="${escapeHtml(root)}">All instances</a></p>`;
    this.html(res, status, renderPage({ title: `${status}`, root: this.options!.path, kind: 'error', main }), headers);
  }

  private html(res: ServerResponse, status: number, html: string, headers: Readonly<Record<string, string | string[]>> = {}): void {
    sendConsoleHtml(res, status, html, headers);
  }
}

/** The `Set-Cookie` headers a page of `browser` carries. */
function cookieHeaders(browser: ConsoleBrowser): Record<string, string[]> {
  return browser.cookies.length ? { 'Set-Cookie': browser.cookies } : {};
}
