import type { McpSessionOptions } from '../sessions/session-options.interface.js';

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
