import { AsyncLocalStorage } from 'node:async_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The HTTP exchange that carried an MCP request. */
export interface McpHttpExchange {
  request: IncomingMessage;
  response: ServerResponse;
}

/**
 * The HTTP request and response of the MCP request being handled: the HTTP transport runs
 * the SDK's `handleRequest` inside it, so a tool call finds the request that carried it (its
 * headers, and `req.user` set by passport or `req.auth` by bearer middleware).
 */
export const mcpHttpExchange = new AsyncLocalStorage<McpHttpExchange>();
