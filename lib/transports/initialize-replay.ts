import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { McpSessionRecord } from '../stores/mcp-session-store.interface.js';

/**
 * Brings a fresh SDK transport (its session id generator returning the stored id, its server
 * connected) to where the client left the session, with the SDK's public API only: the
 * stored `initialize` and then `notifications/initialized` go through `handleRequest` as
 * requests that reach no socket, so the client keeps its session id and sends nothing again.
 */
export async function replayInitialize(transport: StreamableHTTPServerTransport, path: string, record: McpSessionRecord): Promise<void> {
  await post(transport, path, { jsonrpc: '2.0', id: 0, method: 'initialize', params: record.initialize });
  await post(transport, path, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': record.id, 'mcp-protocol-version': record.initialize.protocolVersion });
}

/** One POST that no client sent: its answer is read by nobody. */
async function post(transport: StreamableHTTPServerTransport, path: string, body: JSONRPCMessage, extra: Record<string, string> = {}): Promise<void> {
  const headers: Record<string, string> = {
    host: 'localhost',
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    ...extra,
  };
  const req = new IncomingMessage(new Socket());
  req.method = 'POST';
  req.url = path;
  req.headers = headers;
  req.rawHeaders = Object.entries(headers).flat();
  req.push(null);
  const res = new ServerResponse(req);
  await transport.handleRequest(req, res, body);
  if (res.statusCode >= 400) {
    throw new Error(`the SDK refused the replayed ${'method' in body ? body.method : 'message'} with HTTP ${res.statusCode}`);
  }
}
