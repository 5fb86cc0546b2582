import { cutSessionId, echo } from '../client-input/client-input.echo.js';

/** What an HTTP client or an operator reads from the transports: worded once. */

/** The reason text of any thrown value (for logs). */
export const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** HTTP 403: Host header not allowed (DNS rebinding protection). */
export const hostRejected = (host: string | undefined): string =>
  `Forbidden: Host header "${echo(host ?? '')}" is not allowed for this MCP server (DNS rebinding protection); add it to transports.http.allowedHosts.`;

/** HTTP 403: a request reached a listener beyond loopback while `allowedHosts` is not set. */
export const allowedHostsMissing = (host: string | undefined): string =>
  `Forbidden: Host header "${echo(host ?? '')}" is not checked for this MCP server, which is reached beyond loopback without transports.http.allowedHosts (DNS rebinding protection); set it, e.g. transports.http.allowedHosts: ['mcp.example.com'].`;

/** Startup error: the HTTP server listens beyond loopback and `allowedHosts` is not set. */
export const allowedHostsRequired = (address: string): string =>
  `McpModule: the HTTP server listens on ${address}, beyond loopback, so the Host header must be checked against the names clients use (DNS rebinding protection); set transports.http.allowedHosts, e.g. transports.http.allowedHosts: ['mcp.example.com'], or listen on 127.0.0.1.`;

/** HTTP 403: Origin header not allowed. */
export const originRejected = (origin: string): string =>
  `Forbidden: Origin "${echo(origin)}" is not allowed for this MCP server (DNS rebinding protection): without transports.http.allowedOrigins, an Origin must name this server's own host and port; add it to transports.http.allowedOrigins.`;

/** HTTP 405 on a stateless server. */
export const statelessMethod = (method: string): string =>
  `Method ${echo(method)} is not allowed: this MCP server is stateless (POST only, no sessions).`;

/** HTTP 404: unknown or closed session. */
export const sessionNotFound = (id: string): string =>
  `Session "${echo(id)}" was not found (closed, expired or never opened); send a new initialize request without Mcp-Session-Id.`;

/** HTTP 400: a request without a session that is not an initialize request. */
export const sessionRequired = (): string =>
  'Bad Request: send an initialize request first, then the Mcp-Session-Id header it returns on every request.';

/** HTTP 503: a new (or rebuilt) session would exceed a live-session limit that no eviction frees. */
export const sessionLimitReached = (
  limit: 'maxSessions' | 'maxPerAddress' | 'maxPerPrincipal',
  value: number,
  retryAfterSeconds: number,
): string => {
  switch (limit) {
    case 'maxSessions':
      return `Service Unavailable: this MCP server holds ${value} live sessions (transports.http.sessions.maxSessions), its maximum, and none can be ended for a new one: each holds workflow state, a live stream or a request being answered; retry after ${retryAfterSeconds} s.`;
    case 'maxPerAddress':
      return `Service Unavailable: this client address holds ${value} live sessions (transports.http.sessions.maxPerAddress), the most one address may hold; end one (HTTP DELETE) or retry after ${retryAfterSeconds} s.`;
    case 'maxPerPrincipal':
      return `Service Unavailable: this principal holds ${value} live sessions (transports.http.sessions.maxPerPrincipal), the most one principal may hold; end one (HTTP DELETE) or retry after ${retryAfterSeconds} s.`;
  }
};

/** Log line: a session that held nothing was ended to make room for a new one (`used`: it made requests after initialize). */
export const sessionEvicted = (id: string, maxSessions: number, idleMs: number, used: boolean): string =>
  `Session ${cutSessionId(id)} evicted: ${maxSessions} live sessions (transports.http.sessions.maxSessions) reached, and it ${
    used ? 'was the least recently used one that holds nothing' : 'was the oldest one never used after initialize'
  } (idle ${Math.round(idleMs / 1000)} s); its client gets 404 and re-initializes.`;

/** HTTP 503: one client address opened too many sessions in the last minute. */
export const tooManyNewSessions = (limit: number, retryAfterSeconds: number): string =>
  `Service Unavailable: this client address may open ${limit} sessions per minute (transports.http.sessions.maxNewPerMinutePerClient) and has used them; retry after ${retryAfterSeconds} s.`;

/** HTTP 503: a new request while the server shuts down. */
export const shuttingDown = (): string =>
  'Service Unavailable: this MCP server is shutting down; retry, and another instance (or this one after its restart) serves the session.';

/** HTTP 413: the POST body is larger than `transports.http.maxBodyBytes`. */
export const bodyTooLarge = (limit: number): string =>
  `Payload Too Large: an MCP request body may be at most ${limit} bytes (transports.http.maxBodyBytes).`;

/** HTTP 400 (-32700): the POST body is not JSON. */
export const bodyNotJson = (): string => 'Parse error: the request body is not valid JSON.';

/** HTTP 415: a POST whose body is not declared JSON. */
export const bodyNotDeclaredJson = (): string => 'Unsupported Media Type: Content-Type must be application/json.';

/** HTTP 400 (-32600): the POST body is an empty JSON-RPC batch. */
export const emptyBatch = (): string => 'Invalid Request: the request body is an empty batch ([]); send a JSON-RPC message.';

/** A client error of the framework's own request handling on the MCP path (a content type it has no parser for, say), with its status. */
export const requestRefused = (status: number, reason: string): string => `The request was refused (HTTP ${status}): ${echo(reason)}`;

/** HTTP 400: an `Mcp-Session-Id` longer than any session id. */
export const sessionIdTooLong = (length: number, limit: number): string =>
  `Bad Request: the Mcp-Session-Id header is ${length} characters long; session ids of this MCP server are at most ${limit}. Send a new initialize request without Mcp-Session-Id.`;

/** HTTP 403: the authenticated principal is longer than the module keeps. */
export const principalTooLong = (length: number, limit: number): string =>
  `Forbidden: the authenticated principal (auth clientId) is ${length} characters long; this MCP server accepts principals of at most ${limit} characters.`;

/** Log line: the transport failed to serve a request. */
export const transportFailed = (error: unknown): string => `Internal error while serving MCP: ${reasonOf(error)}`;

/** HTTP 500: what the client reads when the transport failed (the detail is in the log). */
export const transportFailedReply = (): string => 'Internal error while serving MCP; the server log has the details.';

/** Startup log: the SDK v2 packages are not installed, so only the 2025 era is served. */
export const legacyEraOnly = (packages: readonly string[]): string =>
  `Serving MCP 2025-11-25 and earlier only; install ${packages.join(' and ')} to serve 2026-07-28 clients on the same endpoint.`;

/** Startup warning: the SDK v2 packages are installed but failed to load, so only the 2025 era is served. */
export const modernSdkUnloadable = (packages: readonly string[], error: unknown): string =>
  `Serving MCP 2025-11-25 and earlier only: ${packages.join(' and ')} are installed but could not be loaded here (${error instanceof Error ? error.message : String(error)}); 2026-07-28 clients are not served.`;

/** Bootstrap error: `transports.http.protocolEras` asks for 2026-07-28 without the SDK v2 packages. */
export const modernSdkMissing = (packages: readonly string[]): string =>
  `McpModule: transports.http.protocolEras includes "2026-07-28", which runs on ${packages.join(' and ')}; install them (npm install ${packages.join(' ')}) or remove the era.`;

/** HTTP 400: a 2025-era request to a server that serves 2026-07-28 only. */
export const modernEraOnly = (): string =>
  'Bad Request: this MCP server speaks protocol 2026-07-28 only (no initialize, no sessions); call server/discover.';

/** Log line: a reconnecting GET stream asked for events this session no longer keeps (or never had). */
export const replayMiss = (session: string, eventId: string): string =>
  `Session ${cutSessionId(session)}: Last-Event-ID ${echo(eventId)} is not a kept event; the stream resumes without replay.`;

/** Startup warning, written to stderr: stdio is on and the application's logger writes to stdout. */
export const stdioLogsToStdout = (): string =>
  'McpModule: transports.stdio is on and the application logs to stdout, which carries the MCP protocol: the client reads every log line as invalid JSON. Log to stderr instead, e.g. NestFactory.createApplicationContext(AppModule, { logger: new McpStderrLogger() }).';

/** Why a stored session cannot be replayed: its `initialize` params fail the SDK's schema. */
export const initializeParamsInvalid = (issues: readonly string[]): string =>
  `its stored initialize params are not valid (${issues.join('; ')})`;

/** Why a stored session cannot be replayed: the SDK answered a replayed message with an error status. */
export const replayRefused = (method: string, status: number): string => `the SDK refused the replayed ${method} with HTTP ${status}`;

/** Log line (WARN): a stored session cannot be rebuilt, so it ends and its client is answered 404. */
export const sessionNotRebuilt = (id: string, reason: string): string =>
  `Session ${cutSessionId(id)} cannot be rebuilt: ${reason}. It is ended and its requests get 404, so its client starts a new session.`;

/** Log line (WARN): a store failed while a stored session was rebuilt; its request gets 503 and the session stays. */
export const sessionRebuildUnavailable = (id: string, error: unknown): string =>
  `Session ${cutSessionId(id)} cannot be rebuilt now, a store failed (${reasonOf(error)}); its request gets 503 and the session stays for a retry.`;

/** HTTP 503: a store failed while the session was rebuilt on this process. */
export const sessionUnavailable = (): string =>
  'Service Unavailable: this session cannot be served right now (its store did not answer); retry shortly with the same Mcp-Session-Id.';

/** Log line (WARN): the session store failed at `initialize`; no session was opened and the client gets 503. */
export const sessionNotOpened = (error: unknown): string =>
  `A new session was not opened, the session store failed (${reasonOf(error)}); its initialize gets 503 with Retry-After.`;

/** HTTP 503: the session store failed at `initialize`. */
export const sessionNotOpenedReply = (): string =>
  'Service Unavailable: a new session cannot be opened right now (its store did not answer); retry the initialize shortly.';
