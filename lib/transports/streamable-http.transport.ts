import { HttpException, Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { NodeStreamableHttpServerTransport } from './node-streamable-http-server.transport.js';
import { InitializeRequestSchema, isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Server as HttpServer, ServerResponse } from 'node:http';
import type { McpGrants } from '../access/access-requirement.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import { McpAuthenticator, type McpAuthDenial } from '../auth/mcp.authenticator.js';
import { WorkflowAttemptRecorder } from '../gating/workflow-attempt.recorder.js';
import { MAX_PRINCIPAL_LENGTH, MAX_SESSION_ID_LENGTH } from '../client-input/client-input.limits.js';
import { MCP_AUTH_OPTIONS, type McpResolvedAuthOptions } from '../auth/auth-options.interface.js';
import { MCP_HTTP_OPTIONS, type McpResolvedHttpOptions } from '../server/http-options.interface.js';
import { MCP_SESSION_OPTIONS, type McpResolvedSessionOptions } from '../sessions/session-options.interface.js';
import { mcpHttpExchange, withHttpExchange } from '../protocol/mcp-http-request.storage.js';
import { McpServerFactory } from '../protocol/mcp-server.factory.js';
import { invalidParams } from '../protocol/protocol.messages.js';
import { claimsModernEra, loadModernSdk, MODERN_SDK_PACKAGES, type ModernHttpHandler } from '../protocol/modern-era.js';
import { ModernServerFactory } from '../protocol/modern-server.factory.js';
import type { McpServedSession } from '../sessions/mcp-session.js';
import { McpSessionRegistry } from '../sessions/mcp-session.registry.js';
import { McpShutdownDrain } from '../protocol/mcp-shutdown.drain.js';
import { StatefulHttpSessions } from './stateful-http.sessions.js';
import { SessionReplyForwarder } from './session-reply.forwarder.js';
import { attachmentScope } from './attachment-key.js';
import { fromFrameworkError, toNodeExchange, type FastifyInstanceLike, type FrameworkError } from './framework-exchange.js';
import { rejectHostOrOrigin, requireAllowedHosts } from './host-origin.validator.js';
import { McpBodyNotJsonError, McpBodyTooLargeError } from './mcp-body.errors.js';
import { isJsonContentType, readMcpBody, type McpNodeRequest as Request } from './mcp-body.reader.js';
import { interceptRequests } from './request-interceptor.js';
import { McpSessionAdmission, McpSessionRefusal } from './session-admission.js';
import { McpSessionRateLimiter } from './session-rate.limiter.js';
import * as messages from './transports.messages.js';
import { protectedResourcePaths, resolveResourceOnListen, serveProtectedResourceMetadata } from './protected-resource.route.js';
import {
  JSON_RPC_INTERNAL_ERROR as INTERNAL_ERROR,
  JSON_RPC_INVALID_PARAMS as INVALID_PARAMS,
  JSON_RPC_INVALID_REQUEST as INVALID_REQUEST,
  JSON_RPC_PARSE_ERROR as PARSE_ERROR,
  JSON_RPC_SERVER_ERROR as SERVER_ERROR,
  MCP_SESSION_NOT_FOUND_CODE as SESSION_NOT_FOUND,
} from '../results/json-rpc.codes.js';

/** The methods of the MCP path. */
const MCP_METHODS = ['POST', 'GET', 'DELETE'] as const;
type McpMethod = (typeof MCP_METHODS)[number];
/** Seconds a client waits before retrying a session whose store failed while it was rebuilt. */
const STORE_RETRY_AFTER_S = 1;
/** `Retry-After` of a request refused at shutdown: the session goes on with another instance at once. */
const SHUTDOWN_RETRY_AFTER_SECONDS = 1;

/**
 * Serves Streamable HTTP on Nest's own HTTP server: stateful, with one SDK server per
 * session and `list_changed` on the session's GET stream, or stateless, with a fresh server
 * per request and GET answering 405. The route is the framework's (Express or Fastify), or
 * with `direct` a listener on the Node server ahead of the framework.
 */
@Injectable()
export class StreamableHttpTransport implements OnModuleInit {
  private readonly logger = new Logger('McpHttp');

  constructor(
    @Inject(MCP_HTTP_OPTIONS) private readonly http: McpResolvedHttpOptions | null,
    @Inject(MCP_SESSION_OPTIONS) private readonly sessionOptions: McpResolvedSessionOptions,
    private readonly adapterHost: HttpAdapterHost,
    private readonly factory: McpServerFactory,
    private readonly registry: McpSessionRegistry,
    private readonly sessions: StatefulHttpSessions,
    private readonly modernServers: ModernServerFactory,
    private readonly admission: McpSessionAdmission,
    private readonly drain: McpShutdownDrain,
    @Inject(MCP_AUTH_OPTIONS) private readonly auth: McpResolvedAuthOptions,
    private readonly authenticator: McpAuthenticator,
    private readonly access: McpAccessPolicy,
    private readonly replies: SessionReplyForwarder,
    @Inject(WorkflowAttemptRecorder) private readonly attempts: WorkflowAttemptRecorder | null,
  ) {}

  /** The 2026-07-28 handler, when that era is served. */
  private modern?: ModernHttpHandler;
  /** Whether 2025-era requests are served. */
  private legacy = true;
  /** Sessions each client address may still open. */
  private newSessions!: McpSessionRateLimiter;

  async onModuleInit(): Promise<void> {
    const http = this.http;
    const adapter = this.adapterHost.httpAdapter;
    if (!http || !adapter) {
      return;
    }
    const eras = http.protocolEras;
    this.legacy = !eras || eras.includes('2025-11-25');
    this.modern = await this.modernHandler();
    this.newSessions = new McpSessionRateLimiter(this.sessionOptions.maxNewPerMinutePerClient);
    const server = adapter.getHttpServer() as HttpServer;
    this.requireAllowedHostsOnListen(server, http);
    resolveResourceOnListen(server, http, this.auth, this.authenticator);
    if (this.auth.metadata) {
      const paths = protectedResourcePaths(http, this.auth);
      interceptRequests(
        server,
        (url) => paths.includes(url.split('?')[0]),
        (req, res, passOn) => serveProtectedResourceMetadata(this.authenticator, req, res, passOn),
      );
    }
    if (http.direct) {
      this.serveDirect(server, http);
    } else if (adapter.getType() === 'fastify') {
      this.routeOnFastify(adapter.getInstance<FastifyInstanceLike>(), http);
    } else {
      this.routeOnExpress(server, http);
    }
  }

  /**
   * The MCP path as an Express route, behind the app's middleware. Its body is read here, ahead
   * of Express, so the app's body parsers (their limit and their error replies) never handle it,
   * and an error of the app's middleware on the path is answered as JSON-RPC.
   */
  private routeOnExpress(server: HttpServer, http: McpResolvedHttpOptions): void {
    const { path } = http;
    interceptRequests(
      server,
      (url) => isExpressPath(url, path),
      (req, res, passOn) => {
        readMcpBody(req, http.maxBodyBytes).then(passOn, (error: unknown) => this.fail(res, error));
      },
    );
    const adapter = this.adapterHost.httpAdapter;
    adapter.post(path, (req: Request, res: ServerResponse) => this.serveRoute('POST', req, res, http));
    adapter.get(path, (req: Request, res: ServerResponse) => this.serveRoute('GET', req, res, http));
    adapter.delete(path, (req: Request, res: ServerResponse) => this.serveRoute('DELETE', req, res, http));
    // Four parameters: Express calls it with the errors of the middleware before the route.
    adapter.use(
      path,
      (error: FrameworkError, req: Request & { originalUrl?: string }, res: ServerResponse, next: (error: unknown) => void) =>
        isExpressPath(req.originalUrl ?? '', path) ? this.fail(res, fromFrameworkError(error)) : next(error),
    );
  }

  /**
   * The MCP path as a Fastify route, behind the app's hooks and middleware, with its own body
   * limit, and errors of Fastify's request handling (a body that is not JSON, too large, a hook
   * that throws) answered as JSON-RPC.
   */
  private routeOnFastify(fastify: FastifyInstanceLike, http: McpResolvedHttpOptions): void {
    for (const method of MCP_METHODS) {
      fastify.route({
        method,
        url: http.path,
        bodyLimit: http.maxBodyBytes,
        handler: (request, reply) => this.serveRoute(method, request, reply, http),
        errorHandler: (error, request, reply) => this.fail(toNodeExchange(request, reply).res, fromFrameworkError(error)),
      });
    }
  }

  /** Serves a framework route's request: Express hands over Node's request and response; Fastify its request and reply. */
  private serveRoute(method: McpMethod, request: unknown, response: unknown, http: McpResolvedHttpOptions): void {
    try {
      const { req, res } = toNodeExchange(request, response);
      void this.serve(method, req, res, http).catch((error: unknown) => this.fail(res, error));
    } catch (error) {
      this.fail(response as ServerResponse, error);
    }
  }

  /** The 2026-07-28 handler on the SDK v2 packages; without them, only the 2025 era (said once, or refused when asked for). */
  private async modernHandler(): Promise<ModernHttpHandler | undefined> {
    const eras = this.http!.protocolEras;
    if (eras && !eras.includes('2026-07-28')) {
      return undefined;
    }
    const sdk = await loadModernSdk().catch((error: unknown) => {
      // Installed but not loadable here (a broken install, a runtime that cannot load them): serve the 2025 era, unless 2026-07-28 was asked for.
      if (eras) throw error;
      this.logger.warn(messages.modernSdkUnloadable(MODERN_SDK_PACKAGES, error));
      return null;
    });
    if (sdk === null) {
      return undefined;
    }
    if (!sdk) {
      if (eras) {
        throw new Error(messages.modernSdkMissing(MODERN_SDK_PACKAGES));
      }
      this.logger.log(messages.legacyEraOnly(MODERN_SDK_PACKAGES));
      return undefined;
    }
    return this.modernServers.createHandler(sdk);
  }

  /**
   * Fails `app.listen` when the server listens beyond loopback without `allowedHosts`: the
   * error is emitted on the server, which is what `listen` rejects with, and the server is
   * closed once the framework's own 'listening' listeners have run.
   */
  private requireAllowedHostsOnListen(server: HttpServer, http: McpResolvedHttpOptions): void {
    if (http.allowedHosts) {
      return;
    }
    server.on('listening', () => {
      const refusal = requireAllowedHosts(server.address(), http);
      if (refusal) {
        server.emit('error', new Error(refusal));
        setImmediate(() => server.close());
      }
    });
  }

  /** Serves the MCP path from the Node server, ahead of the framework; other paths and methods go to the app. */
  private serveDirect(server: HttpServer, http: McpResolvedHttpOptions): void {
    const { path } = http;
    interceptRequests(
      server,
      (url) => url === path || url.startsWith(`${path}?`),
      (req, res, passOn) => {
        const method = MCP_METHODS.find((known) => known === req.method);
        if (!method) {
          passOn();
          return;
        }
        readMcpBody(req, http.maxBodyBytes)
          .then(() => this.serve(method, req, res, http))
          .catch((error: unknown) => this.fail(res, error));
      },
    );
  }

  private async serve(method: McpMethod, req: Request, res: ServerResponse, http: McpResolvedHttpOptions): Promise<void> {
    const rejection = rejectHostOrOrigin(req, http);
    if (rejection) {
      return this.reply(res, 403, SERVER_ERROR, rejection, req);
    }
    if (this.drain.closing && startsWork(method, req.body)) {
      const headers = { 'Retry-After': String(SHUTDOWN_RETRY_AFTER_SECONDS), Connection: 'close' };
      return this.reply(res, 503, SERVER_ERROR, messages.shuttingDown(), req, headers);
    }
    if (method !== 'GET') {
      this.drain.track(res);
    }
    if (method === 'POST' && !isJsonContentType(req)) {
      return this.reply(res, 415, SERVER_ERROR, messages.bodyNotDeclaredJson(), req);
    }
    if (method === 'POST' && Array.isArray(req.body) && req.body.length === 0) {
      return this.reply(res, 400, INVALID_REQUEST, messages.emptyBatch(), req);
    }
    const authentication = await this.authenticator.authenticate(req, this.access.scopesInBody(req.body));
    if (!authentication.ok) {
      return this.deny(res, authentication, req);
    }
    const principal = req.auth?.clientId;
    if (typeof principal === 'string' && principal.length > MAX_PRINCIPAL_LENGTH) {
      return this.reply(res, 403, SERVER_ERROR, messages.principalTooLong(principal.length, MAX_PRINCIPAL_LENGTH), req);
    }
    const grants = await this.access.grantsOf(req.auth);
    // HTTP 403 before the SDK answers (an SSE stream starts with 200): the client steps up on it.
    const refusal = method === 'POST' ? this.access.refusalInBody(req.body, grants) : undefined;
    if (refusal) {
      const sessionId = req.headers['mcp-session-id'];
      this.attempts?.refusedInBody(
        req.body,
        refusal,
        req.auth,
        typeof sessionId === 'string' && !(this.modern && claimsModernEra(req)) ? sessionId : undefined,
      );
      return this.deny(res, this.authenticator.refused(refusal, req.auth), req);
    }
    if (this.modern && claimsModernEra(req)) {
      const modern = this.modern;
      return mcpHttpExchange.run({ request: req, response: res }, () => modern(req, res, req.body));
    }
    if (!this.legacy) {
      return this.reply(res, 400, SERVER_ERROR, messages.modernEraOnly(), req);
    }
    if (http.stateless) {
      return method === 'POST'
        ? this.serveStateless(req, res, grants)
        : this.reply(res, 405, SERVER_ERROR, messages.statelessMethod(method), req);
    }
    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      if (sessionId.length > MAX_SESSION_ID_LENGTH) {
        return this.reply(res, 400, SERVER_ERROR, messages.sessionIdTooLong(sessionId.length, MAX_SESSION_ID_LENGTH), req);
      }
      const resumed = this.sessions.resume(sessionId, req, res);
      const session = resumed instanceof Promise ? await resumed : resumed;
      if (session instanceof McpSessionRefusal) {
        return this.refuse(res, session, req);
      }
      if (session === 'unavailable') {
        return this.reply(res, 503, SERVER_ERROR, messages.sessionUnavailable(), req, { 'Retry-After': String(STORE_RETRY_AFTER_S) });
      }
      // Another principal's session answers as an unknown one: a session id proves nothing to a stranger.
      if (!session) {
        return this.reply(res, 404, SESSION_NOT_FOUND, messages.sessionNotFound(sessionId), req);
      }
      this.registry.regrant(session, grants);
      if (method === 'GET') {
        const refused = this.sessions.streamRefusal(session, req, res);
        if (refused) return this.reply(res, 409, SERVER_ERROR, refused, req);
        res.once('close', this.registry.openStream(session));
      }
      return (method === 'POST' && this.replies.route(session, req, res)) || this.handle(session, req, res);
    }
    if (method !== 'POST' || !isInitializeRequest(req.body)) {
      return this.refuseSessionless(method, req, res);
    }
    const address = this.sessionOptions.clientAddress(req);
    const retryAfter = this.newSessions.take(address);
    if (retryAfter > 0) {
      const limit = this.sessionOptions.maxNewPerMinutePerClient;
      return this.reply(res, 503, SERVER_ERROR, messages.tooManyNewSessions(limit, retryAfter), req, { 'Retry-After': String(retryAfter) });
    }
    const slot = this.admission.admit(address, req.auth?.clientId);
    if (slot instanceof McpSessionRefusal) {
      return this.refuse(res, slot, req);
    }
    // Held until the initialize is answered: the session is live by then, or failed.
    res.once('close', () => slot.release());
    const session = await this.sessions.open(req.body, req.auth?.clientId, address);
    if (session === 'unavailable') {
      return this.reply(res, 503, SERVER_ERROR, messages.sessionNotOpenedReply(), req, { 'Retry-After': String(STORE_RETRY_AFTER_S) });
    }
    this.registry.regrant(session, grants);
    await this.handle(session, req, res);
  }

  /** A request refused by authentication or authorization: its status, its `WWW-Authenticate` challenge, and a JSON-RPC error saying why. */
  private deny(res: ServerResponse, denial: McpAuthDenial, req: Request): void {
    this.reply(res, denial.status, SERVER_ERROR, denial.message, req, { ...denial.headers });
  }

  /** HTTP 503 for a session a live-session limit refused, with when to try again. */
  private refuse(res: ServerResponse, refusal: McpSessionRefusal, req: Request): void {
    this.reply(res, 503, SERVER_ERROR, refusal.message, req, { 'Retry-After': String(refusal.retryAfterSeconds) });
  }

  /** A request outside any session that is not an `initialize`: one with bad params is told what is wrong with them (-32602). */
  private refuseSessionless(method: McpMethod, req: Request, res: ServerResponse): void {
    const body = req.body as { method?: unknown } | undefined;
    if (method === 'POST' && body?.method === 'initialize') {
      const { error } = InitializeRequestSchema.safeParse(body);
      return this.reply(res, 400, INVALID_PARAMS, invalidParams('initialize', error?.issues ?? []), req);
    }
    return this.reply(res, 400, SERVER_ERROR, messages.sessionRequired(), req);
  }

  private async serveStateless(req: Request, res: ServerResponse, grants: McpGrants): Promise<void> {
    const scope = this.http!.singleTenant ? attachmentScope(this.http!.attachmentId) : undefined;
    const session = this.factory.createSession('stateless', undefined, scope);
    this.registry.regrant(session, grants);
    const transport = new NodeStreamableHttpServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => void session.server.close());
    await session.server.connect(transport);
    await this.handle(session, req, res);
  }

  /** Lets the session's SDK transport answer, with the HTTP exchange reachable from tool calls (by their request ids). */
  private handle(session: McpServedSession, req: Request, res: ServerResponse): Promise<void> {
    const transport = session.server.transport as NodeStreamableHttpServerTransport;
    return withHttpExchange(session, req.body, { request: req, response: res }, () => transport.handleNodeRequest(req, res, req.body));
  }

  /** Answers a request the transport failed to serve; never throws, so a failure cannot take the process down. */
  private fail(res: ServerResponse, error: unknown): void {
    try {
      if (!res.headersSent && error instanceof McpBodyNotJsonError) {
        return this.reply(res, 400, PARSE_ERROR, messages.bodyNotJson());
      }
      if (!res.headersSent && error instanceof McpBodyTooLargeError) {
        // The rest of the body is not read: the connection closes after the reply.
        return this.reply(res, 413, SERVER_ERROR, messages.bodyTooLarge(this.http!.maxBodyBytes), undefined, { Connection: 'close' });
      }
      if (!res.headersSent && error instanceof HttpException) {
        return this.reply(res, error.getStatus(), SERVER_ERROR, error.message);
      }
      this.logger.error(messages.transportFailed(error), error instanceof Error ? error.stack : undefined);
      if (!res.headersSent) {
        this.reply(res, 500, INTERNAL_ERROR, messages.transportFailedReply());
      }
    } catch (replyError) {
      this.logger.error(messages.transportFailed(replyError), replyError instanceof Error ? replyError.stack : undefined);
      (res as Partial<ServerResponse>).destroy?.();
    }
  }

  /** An error reply outside any request handler, with the request's id when the body is one request (`null` otherwise, as JSON-RPC says). */
  private reply(
    res: ServerResponse,
    status: number,
    code: number,
    message: string,
    req?: Request,
    headers: Record<string, string> = {},
  ): void {
    const body = req?.body as { id?: unknown } | undefined;
    const id = typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : null;
    res.writeHead(status, { ...headers, 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }));
  }
}

/**
 * Whether a request starts work a shutting-down server no longer takes: a GET stream, or a
 * POST with a JSON-RPC request in it. Responses and notifications (an answer to an
 * elicitation, a cancellation) still reach the calls in flight, and DELETE still ends a session.
 */
function startsWork(method: string, body: unknown): boolean {
  if (method !== 'POST') {
    return method === 'GET';
  }
  return Array.isArray(body) ? body.some((message) => isJSONRPCRequest(message)) : isJSONRPCRequest(body);
}

/**
 * Whether Express routes `url` to the route of `path`: by default it matches paths without
 * regard to case and with an optional trailing slash.
 */
function isExpressPath(url: string, path: string): boolean {
  const query = url.indexOf('?');
  const requested = (query === -1 ? url : url.slice(0, query)).toLowerCase();
  const route = path.toLowerCase();
  return requested === route || requested === `${route}/`;
}
