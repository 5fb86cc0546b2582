import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The HTTP exchange that carried an MCP request. */
export interface McpHttpExchange {
  request: IncomingMessage;
  response: ServerResponse;
}

/**
 * The HTTP request and response of the 2026-07-28 request being handled: the HTTP transport
 * runs the SDK v2 handler inside it, so a tool call finds the request that carried it (its
 * headers, and `req.user` set by passport or `req.auth` by bearer middleware). The SDK builds
 * that era's web `Request` itself, so nothing else leads back to Node's.
 */
export const mcpHttpExchange = new AsyncLocalStorage<McpHttpExchange>();

/** The exchanges of a session's JSON-RPC requests in flight, by request id. */
const exchangesBySession = new WeakMap<object, Map<RequestId, McpHttpExchange>>();

/**
 * Runs `serve` (the SDK answering `body` on `session`) with `exchange` found by the id of every
 * JSON-RPC request in `body` (see {@link httpExchangeOf}) until it settles. Used for the 2025
 * era instead of an `AsyncLocalStorage`, which on Node 20 makes every promise of the process
 * pay a hook: the SDK hands every handler its request's id, and ids are unique per session
 * among the requests in flight.
 */
export async function withHttpExchange(
  session: object,
  body: unknown,
  exchange: McpHttpExchange,
  serve: () => Promise<void>,
): Promise<void> {
  const ids: RequestId[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    const id = requestIdOf(message);
    if (id !== undefined) ids.push(id);
  }
  if (ids.length === 0) {
    return serve();
  }
  let exchanges = exchangesBySession.get(session);
  if (!exchanges) {
    exchanges = new Map();
    exchangesBySession.set(session, exchanges);
  }
  for (const id of ids) exchanges.set(id, exchange);
  try {
    await serve();
  } finally {
    for (const id of ids) {
      if (exchanges.get(id) === exchange) exchanges.delete(id);
    }
  }
}

/** The HTTP exchange of the request `requestId` of `session`: the one {@link withHttpExchange} serves, else the 2026-07-28 one. */
export function httpExchangeOf(session: object, requestId: RequestId | undefined): McpHttpExchange | undefined {
  const exchange = requestId === undefined ? undefined : exchangesBySession.get(session)?.get(requestId);
  return exchange ?? mcpHttpExchange.getStore();
}

/** The id of a message with a method and an id (a request), without the SDK's zod parse; the SDK checks the rest. */
function requestIdOf(message: unknown): RequestId | undefined {
  const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number') ? id : undefined;
}
