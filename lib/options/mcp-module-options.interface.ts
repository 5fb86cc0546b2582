import type { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import type { Type } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { IncomingMessage } from 'node:http';
import type { McpMachine } from '../machines/machine.interface.js';
import type { WorkflowGate } from '../gating/workflow-gate.js';
import type { McpSessionStore } from '../stores/mcp-session-store.interface.js';
import type { McpStateCacheOptions } from '../sessions/state-cache-options.interface.js';
import type { TransitionRelay } from '../relays/transition-relay.interface.js';
import type { McpTokenVerifier } from '../access/token-verifier.interface.js';

/** Streamable HTTP transport options. */
export interface McpHttpTransportOptions {
  /**
   * Path the MCP endpoint is served on (POST, GET, DELETE), absolute: `setGlobalPrefix` does
   * not apply to it, on Express or Fastify, direct or not.
   * @default '/mcp'
   */
  path?: string;
  /**
   * Stateless mode: no `Mcp-Session-Id`, GET answers 405, and `list_changed` is sent on the
   * call's own response stream. Only handle-keyed gating applies there.
   * @default false
   */
  stateless?: boolean;
  /**
   * Host header values accepted (DNS rebinding protection), e.g. `['mcp.example.com']`.
   * `undefined` accepts the loopback names (`localhost`, `127.0.0.1`, `[::1]`, any port) on a
   * server that listens on loopback; a server that listens beyond loopback (`0.0.0.0`, `::`,
   * a LAN address) without it fails to start (`app.listen` rejects).
   */
  allowedHosts?: string[];
  /**
   * Origin header values accepted, exactly as browsers send them (`'https://app.example.com'`);
   * requests without Origin are allowed.
   * @default this server's own origin: the Host the request names (host and port), or, on a
   *   loopback listener, a loopback name on the port the request reached; a page served from
   *   another port of this machine is refused
   */
  allowedOrigins?: string[];
  /**
   * Serve the MCP path straight from Node's HTTP server, ahead of the framework: no body
   * parser, router or middleware of the app runs for it (so `app.use(...)` auth does not
   * either: use `auth`), which saves most of what Express costs per request. Guards,
   * interceptors, pipes and filters on tools run as usual. `path` is then absolute:
   * `setGlobalPrefix` does not apply to it. Other paths are served by the app as before.
   * @default false
   */
  direct?: boolean;
  /**
   * Who the caller is, from the HTTP request, when no middleware of the app set `req.auth`
   * (always, with `direct`): the `AuthInfo` of a valid credential, `undefined` for an
   * anonymous caller. Throw an `HttpException` (e.g. `UnauthorizedException`) to answer the
   * request with its status and message. The 0.2 spelling of `auth.fromRequest`, which
   * replaces it (read when `auth.fromRequest` is not set).
   * @deprecated Use `auth.fromRequest`.
   */
  authenticate?: (request: IncomingMessage) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * Graceful shutdown (`app.close()`, or a signal with `enableShutdownHooks()`): for this
   * long, requests in flight finish and deliver their results while new requests get HTTP 503
   * with `Retry-After`; then calls still running are abandoned (their transitions are never
   * stored, their clients get a JSON-RPC error), and the sessions' streams close.
   * @default 10_000
   */
  drainMs?: number;
  /**
   * The largest request body the MCP path takes, in bytes, on Express, Fastify and `direct`
   * alike (the app's own body parsers never see the MCP path); a larger one gets HTTP 413 with
   * a JSON-RPC error naming this option. The default is the SDK transport's own limit, so a
   * request a bare SDK server takes is taken here.
   * @default 4_194_304 (4 MB)
   */
  maxBodyBytes?: number;
  /** Where stateful HTTP sessions live, and their limits. */
  sessions?: McpSessionOptions;
  /**
   * One tenant per process: session-keyed machines on stateless HTTP share one in-process
   * instance (keyed by `attachmentId`) instead of being refused.
   * @default false
   */
  singleTenant?: boolean;
  /**
   * The MCP protocol eras the endpoint serves: `'2025-11-25'` (and earlier; sessions,
   * per-session lists and `list_changed`, on `@modelcontextprotocol/sdk`) and `'2026-07-28'`
   * (no sessions; lists the same for everyone with cache hints, calls gated; on the optional
   * peers `@modelcontextprotocol/server` and `@modelcontextprotocol/node`). Requests are routed
   * by the era they claim.
   * @default both when the SDK v2 packages are installed, else `['2025-11-25']` (said once at startup)
   */
  protocolEras?: ('2025-11-25' | '2026-07-28')[];
  /**
   * `ttlMs` of the cache hints on 2026-07-28 lists (`tools/list`, `prompts/list`,
   * `resources/list`, `resources/templates/list`), with `cacheScope: 'public'`: the lists only
   * change with a deployment (`'private'` when a `@McpRequire` makes them differ between callers).
   * @default 300_000 (5 minutes)
   */
  listCacheTtlMs?: number;
}

/** How workflow calls are claimed, refused, listed and kept (`McpModuleOptions.gate`). */
export interface McpGateOptions {
  /**
   * A subclass of `WorkflowGate` to run every workflow call with (override its protected methods);
   * created by Nest's injector, so it can inject your providers.
   * @default WorkflowGate
   */
  useClass?: Type<WorkflowGate>;
  /**
   * Lease of a claimed instance, in milliseconds. The lease is renewed every third of it
   * while the handler runs (stores with `renew`); after a crash, the instance is free again
   * once it runs out.
   * @default 15_000
   */
  leaseMs?: number;
  /**
   * Run every claim as a row lock in a transaction the handler joins (stores that support it).
   * @default false
   */
  transactional?: boolean;
  /**
   * How a refusal reaches the client: a tool result with `isError: true` (what hosts show the
   * model), or a JSON-RPC error -32602 for strict clients.
   * @default 'result'
   */
  refusal?: 'result' | 'jsonrpc';
  /**
   * Which bound tools of handle-keyed machines a session's menu lists: those allowed for a
   * handle the session started or used (`'used'`), or all of them, gated at call time
   * (`'all'`), for clients that list before every call and keep no session, such as the
   * MCP Inspector CLI. Stateless HTTP always lists all of them.
   * @default 'used'
   */
  handleToolsMenu?: 'used' | 'all';
  /**
   * Retention of workflow instances in the store (stores with `sweep`: both shipped ones). A
   * sweep runs every `intervalMs` in batches of `batchSize`, safe with several processes on
   * one store.
   * @default off: nothing is deleted
   */
  retention?: McpRetentionOptions;
}

/**
 * What the server asks the client for mid-call (`McpModuleOptions.inputRequests`): a person's
 * yes before a confirmed transition (`@McpConfirm`), and the elicitation, sampling and roots
 * requests of handlers that return `mcpInputRequired(...)`. A 2025-11-25 session is asked
 * with server requests on the call's stream; a 2026-07-28 call gets an input-required result
 * and calls again with the answers and the `requestState` (see docs/confirmations.md).
 */
export interface McpInputRequestOptions {
  /**
   * How long a 2025-11-25 session waits for the client's answer to one request (a person
   * reading the question); then a confirmation is `DECLINED` saying so.
   * @default 300_000 (5 minutes)
   */
  timeoutMs?: number;
  /**
   * The HMAC-SHA256 key that signs `requestState` (2026-07-28): at least 32 bytes, the same
   * on every replica behind one endpoint, secret. A state signed with another key is refused.
   * @default a random key per process (logged at startup): a retry that reaches another
   *   replica or a restarted process is refused
   */
  requestStateKey?: string | Uint8Array;
  /**
   * How long a `requestState` is valid (whole seconds); an older one is refused.
   * @default 600_000 (10 minutes)
   */
  requestStateTtlMs?: number;
  /**
   * Rounds of one 2025-11-25 call whose handler keeps returning `mcpInputRequired(...)`;
   * beyond, the call fails with an error naming the option.
   * @default 8
   */
  maxRounds?: number;
}

/** How long the store keeps workflow instances (`gate.retention`). */
export interface McpRetentionOptions {
  /**
   * An instance in a final state, and its history, is deleted this long after its last transition.
   * @default kept forever
   */
  finishedMs?: number;
  /**
   * An instance of a handle-keyed machine that has not moved for this long is deleted (its
   * handle then gets UNKNOWN_HANDLE, which says handles expire). Start tools say so.
   * @default kept forever
   */
  idleHandleMs?: number;
  /** Time between sweeps. @default 60_000 */
  intervalMs?: number;
  /** Instances deleted per store call; a sweep makes at most 20 calls. @default 500 */
  batchSize?: number;
}

/** Where stateful HTTP sessions live, and their limits. */
export interface McpSessionOptions {
  /**
   * Where sessions are recorded at `initialize`. A store shared by several processes (for
   * example `new TypeOrmMcpSessionStore(dataSource)` from `nestjs-mcp-fsm/typeorm`) lets any
   * of them serve any session, across restarts and without sticky routing; its session-keyed
   * workflows survive restarts too.
   * @default an `InMemoryMcpSessionStore`: the sessions of this process, ended by a restart
   */
  store?: McpSessionStore;
  /**
   * A session no process has heard from for this long ends everywhere: its record, its kept
   * events and its session-keyed instances are deleted (also those of a process that crashed).
   * @default 1_800_000 (30 minutes)
   */
  idleTtlMs?: number;
  /**
   * How long a message sent on a session's GET stream is kept for a client that reconnects
   * with `Last-Event-ID` (on any process sharing `store`); `0` turns replay off. With replay
   * on, every POST response starts with an SSE priming event (2025-11-25), which costs a
   * little on each call.
   * @default 300_000 (5 minutes) when `store` is set, else 0 (off)
   */
  eventRetentionMs?: number;
  /**
   * A session that made no request since `initialize` (other than `notifications/initialized`;
   * opening its GET stream does not count either) ends everywhere after this long: its record
   * is deleted and its client gets HTTP 404 and re-initializes.
   * @default 30_000 (30 seconds)
   */
  unusedTtlMs?: number;
  /**
   * Live sessions of this process. At the limit, a new (or rebuilt) session takes the place of
   * the least recently used idle one, which ends everywhere (its client gets HTTP 404 and
   * re-initializes); only when every session is answering a request is it refused with HTTP
   * 503 and `Retry-After`.
   * @default 1000
   */
  maxSessions?: number;
  /**
   * Live sessions of this process one client address (see `clientAddress`) may hold; beyond,
   * its `initialize` gets HTTP 503 with `Retry-After` naming the option. `Infinity` turns it off.
   * @default a tenth of `maxSessions` (100), at least 1
   */
  maxPerAddress?: number;
  /**
   * Live sessions of this process one principal (auth client id) may hold; beyond, its
   * `initialize` gets HTTP 503 with `Retry-After` naming the option. `Infinity` turns it off.
   * @default a tenth of `maxSessions` (100), at least 1
   */
  maxPerPrincipal?: number;
  /**
   * Sessions of this process told of one instance's transitions (`list_changed`, and a kept
   * event when replay is on): the ones that followed it first. A session beyond them still
   * lists the instance's tools and is told in-band of its own calls, but not of other
   * sessions' transitions. A payment is followed by the conversations that started or looked
   * it up, a handful; the bound keeps anyone who holds a handle (an anonymous one is a bearer
   * capability) from making each of its transitions cost hundreds of notifications and
   * writes, or pushing its owner out.
   * @default 16
   */
  maxFollowersPerInstance?: number;
  /**
   * Requests to its client one session may have waiting for an answer at once: confirmations
   * (`@McpConfirm`), and a handler's own elicitations, sampling and roots requests. A request
   * over it is not sent: a confirmation is refused with CONFIRMATION_REQUIRED, a handler's own
   * request fails with an error naming this option. A client that never answers then holds
   * this many, not any number.
   * @default 8
   */
  maxPendingRequests?: number;
  /**
   * Sessions one client address may open per minute (a token bucket refilled over the
   * minute); an `initialize` beyond it gets HTTP 503 with `Retry-After`. Other addresses are
   * not affected. `Infinity` turns the limit off.
   * @default 60
   */
  maxNewPerMinutePerClient?: number;
  /**
   * The client address sessions are counted by. Behind a reverse proxy every request comes
   * from the proxy: return the address it forwards (from a header only your proxy sets).
   * @default the socket's remote address (an IPv6 address by its /64)
   */
  clientAddress?: (request: IncomingMessage) => string;
}

/**
 * Traces and metrics through `@opentelemetry/api` (an optional peer; the app registers the
 * SDK): spans, attributes and metrics in docs/observability.md.
 */
export interface McpTelemetryOptions {
  /** `false`: no span, no metric, and the API is not imported. @default true (a no-op until an SDK is registered) */
  enabled?: boolean;
  /**
   * Record each `tools/call`'s arguments on its span as `gen_ai.tool.call.arguments` (JSON).
   * They may hold personal or payment data. @default false
   */
  recordArguments?: boolean;
  /** Record each successful `tools/call`'s result on its span as `gen_ai.tool.call.result` (JSON). @default false */
  recordResults?: boolean;
  /**
   * Key of the keyed hash (HMAC-SHA-256) that `workflow.instance.id` is. Give every replica
   * the same one (from a secret) so an instance has one id across replicas and restarts.
   * @default 32 random bytes per process
   */
  instanceDigestKey?: string | Uint8Array;
}

/**
 * Who may call (`McpModuleOptions.auth`): how the caller of an HTTP request is known, and what
 * the server says about it (the MCP authorization spec, 2025-11-25). Set exactly one of `jwt`
 * (bearer JWTs verified against the issuer's JWKS), `verifier` (opaque tokens, introspection)
 * or `fromRequest` (the app's own Passport strategy or middleware); see docs/auth.md.
 */
export interface McpAuthOptions {
  /** Verify bearer JWTs against the issuer's JWKS (needs the optional peer `jose`). */
  jwt?: McpJwtOptions;
  /** Verify bearer tokens with your own verifier (the SDK's `OAuthTokenVerifier` fits). */
  verifier?: McpTokenVerifier;
  /**
   * The caller of a request your own middleware (Passport, a guard's strategy run as
   * middleware) already authenticated: map `req.user` to the `AuthInfo` whose `clientId` is
   * the principal and `scopes` its scopes; `undefined` for an anonymous caller. Called when no
   * middleware set `req.auth` (which is then taken as it is). Throw an `HttpException` to
   * answer with its status and message.
   * @default `req.auth`, as the SDK's `requireBearerAuth` or your middleware set it
   */
  fromRequest?: (request: IncomingMessage & { user?: unknown; auth?: AuthInfo }) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * Refuse a request without a valid token with HTTP 401 and a `WWW-Authenticate` challenge
   * naming the metadata; `false` lets anonymous callers in (they see and call only what
   * requires nothing).
   * @default true with `jwt` or `verifier`, else false
   */
  required?: boolean;
  /**
   * This server's resource URL (RFC 8707, RFC 9728 `resource`): the audience tokens must name,
   * and where the metadata says the resource is, e.g. `'https://mcp.example.com/mcp'`.
   * Required when the server is reached beyond loopback or behind a proxy.
   * @default `http://<loopback address>:<port><transports.http.path>` of the listener (`app.listen`
   *   rejects when it listens beyond loopback without it)
   */
  resource?: string;
  /**
   * The authorization servers that issue tokens for this resource (RFC 9728
   * `authorization_servers`). Required with `verifier`.
   * @default `[jwt.issuer]`
   */
  authorizationServers?: string[];
  /**
   * Scopes the metadata lists (`scopes_supported`) besides those a `@McpRequire` names, e.g.
   * the scopes of your own routes (`defineAccess(...).scopes`).
   * @default []
   */
  scopesSupported?: readonly string[];
  /**
   * The roles of a caller, for `@McpRequire({ roles })`: from a claim, or your own lookup.
   * Called once per request; a hook that throws gives no roles (logged).
   * @default `authInfo.extra.roles` when it is a list of strings (`auth.jwt` puts the `roles` claim there), else none
   */
  roles?: (authInfo: AuthInfo) => readonly string[] | Promise<readonly string[]>;
}

/** Bearer JWT verification against an issuer's JWKS (`auth.jwt`). */
export interface McpJwtOptions {
  /** The `iss` tokens must carry, e.g. `'https://auth.example.com'`. */
  issuer: string;
  /** Where the issuer publishes its signing keys (JWKS), e.g. `'https://auth.example.com/.well-known/jwks.json'`. */
  jwksUrl: string;
  /**
   * The `aud` tokens must carry (one of them, when a list).
   * @default `auth.resource` (RFC 8707: tokens are minted for this server's URL)
   */
  audience?: string | string[];
  /**
   * Signature algorithms accepted. Only asymmetric ones by default: `alg: none` and tokens
   * signed with a shared secret (an HS256 token "signed" with the public key) are refused.
   * @default ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']
   */
  algorithms?: string[];
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in milliseconds. @default 5_000 */
  clockToleranceMs?: number;
  /** The claim whose value is the principal (`AuthInfo.clientId`), which sessions and handles are bound to. @default 'sub' */
  principalClaim?: string;
  /** The claim holding the scopes: a space-separated string (or a list). @default 'scope' */
  scopeClaim?: string;
  /** The claim holding the caller's roles (a list, or a space-separated string), put in `AuthInfo.extra.roles`. @default 'roles' */
  rolesClaim?: string;
  /** Time after a JWKS fetch during which a token with an unknown `kid` does not fetch it again. @default 30_000 */
  jwksCooldownMs?: number;
  /** How long fetched keys are used before they are fetched again. @default 600_000 (10 minutes) */
  jwksCacheMaxAgeMs?: number;
  /** How long a JWKS fetch may take; a slower one fails closed (HTTP 503). @default 5_000 */
  jwksTimeoutMs?: number;
  /**
   * The largest JWKS response read, in bytes; a larger one is not read further and fails
   * closed (HTTP 503, the log says why). A JWKS of a dozen RSA keys is a few kilobytes.
   * @default 262_144 (256 KiB)
   */
  jwksMaxBytes?: number;
}

/** A request to the workflow console, as `authorize` sees it: `auth` is set when the app's authentication ran (middleware, or `transports.http.authenticate`). */
export type McpConsoleRequest = IncomingMessage & { auth?: AuthInfo };

/**
 * The workflow console (`McpModuleOptions.console`): a read-only page of every workflow
 * instance, its diagram, history and context, live, served by the app itself (docs/console.md).
 * It shows handles and session ids, which are bearer capabilities: keep it behind `authorize`.
 */
export interface McpConsoleOptions {
  /**
   * Path of the list of instances, absolute (`setGlobalPrefix` does not apply); an instance is
   * at `<path>/<machine>/<instance>`, its live stream at `.../events`.
   * @default '/workflows'
   */
  path?: string;
  /**
   * Who may see the console, asked for every page and stream: `true` serves it; `false` answers
   * HTTP 403; a thrown `HttpException` (e.g. `UnauthorizedException`) answers with its status
   * and message; any other error answers 500 (logged). Sync or async. Asked after `scopes`.
   * @default with `scopes`, every request whose token holds them; without, only requests from a
   *   loopback address (the machine itself)
   */
  authorize?: (request: McpConsoleRequest) => boolean | Promise<boolean>;
  /**
   * Scopes the caller's bearer token must all hold to see the console, checked by the module's
   * `auth` as for a tool: no token → 401 with the `resource_metadata` challenge, a token without
   * them → 403 `insufficient_scope` naming them (e.g. `['workflows:read']`).
   * @default [] (none)
   */
  scopes?: readonly string[];
  /** Instances on one page of the list. @default 50 */
  pageSize?: number;
  /** History rows on an instance's page, the most recent ones. @default 100 */
  historyLimit?: number;
  /** Live streams (open console pages) this process serves at once; beyond, a stream gets HTTP 503 and the page retries. @default 32 */
  maxStreams?: number;
  /** Time between heartbeats on an idle live stream (keeps proxies from closing it). @default 15_000 */
  heartbeatMs?: number;
  /** A live stream is closed after this long and the page reconnects (it re-reads what it shows). @default 300_000 (5 minutes) */
  streamMaxMs?: number;
  /**
   * The browser sign-in at `<path>/sign-in`, served when `auth` verifies bearer tokens (`jwt`,
   * `verifier`): a form takes a token, checks it as a request's `Authorization` header is
   * checked (the same verifier, `scopes` and `authorize`), and keeps it in an `HttpOnly;
   * SameSite=Strict` cookie scoped to the console's path for at most this long (never beyond
   * the token's own expiry); `<path>/sign-out` ends it. `0` turns the sign-in off. With
   * `auth.fromRequest`, your own login is the sign-in: see docs/console.md.
   * @default 3_600_000 (1 hour)
   */
  signInMaxAgeMs?: number;
}

/** Options of `McpModule.forRoot` / `forRootAsync`. */
export interface McpModuleOptions {
  /** Server name sent in `initialize`. */
  name: string;
  /** Server version sent in `initialize`. */
  version: string;
  /**
   * Identity of this server among the app's McpModules: what `@McpTool({ server })` and
   * `@McpServedBy(server)` name (with several McpModules, every handler names one). Unique in the app.
   * @default `name`
   */
  serverId?: string;
  /** Instructions sent in `initialize`. */
  instructions?: string;
  /** Machines tools can bind to (`defineMachine(...)`). @default [] */
  machines?: McpMachine[];
  /**
   * Which engine runs the machines: XState when installed (`'auto'`), XState always
   * (`'xstate'`, fails without it), or the built-in table for flat machines (`'table'`).
   * @default 'auto'
   */
  engine?: 'auto' | 'xstate' | 'table';
  /** Where workflow state lives. @default a new `InMemoryFsmStateStore` */
  store?: FsmStateStore;
  /**
   * Who may call: bearer tokens verified here (`jwt`, `verifier`) or by your middleware
   * (`fromRequest`), the protected-resource metadata, and the roles of a caller; see docs/auth.md.
   * @default off: `req.auth` as your middleware sets it (or `transports.http.authenticate`), anonymous callers allowed
   */
  auth?: McpAuthOptions;
  /**
   * Transports to serve.
   * @default `{ http: { path: '/mcp' } }`
   */
  transports?: {
    /** Streamable HTTP on Nest's own HTTP server, or `false`. */
    http?: McpHttpTransportOptions | false;
    /** Serve stdio (stdin/stdout) when the application starts. @default false */
    stdio?: boolean;
  };
  /**
   * Identity of the one in-process attachment (stdio, and stateless HTTP with
   * `transports.http.singleTenant`): the key of its session-keyed instances, so they survive a
   * restart on a durable store.
   * @default 'local'
   */
  attachmentId?: string;
  /**
   * How workflow calls are claimed, refused, listed and kept. A class here (`gate: MyGate`) is
   * the deprecated form of `gate: { useClass: MyGate }`.
   * @default `{ useClass: WorkflowGate, leaseMs: 15_000, transactional: false, refusal: 'result', handleToolsMenu: 'used' }`
   */
  gate?: McpGateOptions | Type<WorkflowGate>;
  /**
   * What the server asks the client for mid-call: confirmations (`@McpConfirm`) and
   * input-required results, the wait, and the key that signs `requestState`.
   * @default `{ timeoutMs: 300_000, requestStateKey: <random per process>, requestStateTtlMs: 600_000, maxRounds: 8 }`
   */
  inputRequests?: McpInputRequestOptions;
  /**
   * Carries transitions between processes that share the store, so sessions on every
   * instance get `list_changed` (for example `new PostgresTransitionRelay(dataSource)`).
   * @default none: notifications reach the sessions of this process only
   */
  transitionRelay?: TransitionRelay;
  /**
   * Menus from memory: the states of the instances this process's sessions follow, kept by
   * its own transitions and the relay's messages, so a list costs the same for 1 or 1,000
   * followed instances (`true`/`false` set `enabled`). See docs/deployment.md#menus-from-memory-statecache.
   * @default `{ enabled: false, maxInstances: 10_000, maxAgeMs: 60_000 }`
   */
  stateCache?: McpStateCacheOptions | boolean;
  /**
   * Request-scoped (or transient-dependent) tool providers are resolved per call when `true`,
   * and refused at bootstrap when `false`.
   * @default true
   */
  allowRequestScoped?: boolean;
  /**
   * Serve each workflow as MCP resources: its diagram (`workflow://<machine>/diagram`, Mermaid)
   * and the caller's instance (state, context, allowed tools and the diagram with the state
   * highlighted: `workflow://<machine>/instance` for a session-keyed machine,
   * `workflow://<machine>/instance/{handle}` for a handle-keyed one, owner only).
   * @default false
   */
  workflowResources?: boolean;
  /**
   * The workflow console in the browser: `true` (or options) serves it at `/workflows`
   * (see {@link McpConsoleOptions}); the store needs the read methods (both shipped stores have them).
   * @default false
   */
  console?: McpConsoleOptions | boolean;
  /**
   * Escape hatch: called with each connection's SDK `Server` before it connects, after the
   * module registered its handlers. Register what the module does not serve (sampling
   * handlers, extra capabilities with `server.registerCapabilities`). Replacing the module's
   * handlers (`tools/*`, `prompts/*`, `resources/*`, `completion/complete`,
   * `logging/setLevel`) bypasses the gate, its menus and `list_changed`.
   */
  configureServer?: (server: Server, connection: { kind: 'stateful' | 'stateless' | 'stdio'; sessionId?: string }) => void;
  /** Traces and metrics (OpenTelemetry). @default `{ enabled: true, recordArguments: false, recordResults: false }` */
  telemetry?: McpTelemetryOptions;
  /** @deprecated Use `transports.http.singleTenant`. */
  singleTenant?: boolean;
  /** @deprecated Use `transports.http.sessions`. */
  sessions?: McpSessionOptions;
  /** @deprecated Use `transports.http.protocolEras`. */
  protocolEras?: ('2025-11-25' | '2026-07-28')[];
  /** @deprecated Use `transports.http.listCacheTtlMs`. */
  listCacheTtlMs?: number;
  /** @deprecated Use `gate.handleToolsMenu`. */
  handleToolsMenu?: 'used' | 'all';
  /** @deprecated Use `gate.refusal`. */
  refusal?: 'result' | 'jsonrpc';
  /** @deprecated Use `gate.leaseMs`. */
  leaseMs?: number;
  /** @deprecated Use `gate.retention`. */
  retention?: McpRetentionOptions;
  /** @deprecated Use `gate.transactional`. */
  transactional?: boolean;
}
