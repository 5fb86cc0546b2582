import type { NodeStreamableHttpServerTransport } from './node-streamable-http-server.transport.js';
import {
  type InitializeRequest,
  InitializeRequestParamsSchema,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import * as messages from './transports.messages.js';

/**
 * The protocol version the SDK server answers an `initialize` that asks for `requested` with:
 * the same version when the SDK speaks it, else its latest (a newer client is negotiated down).
 */
export function negotiatedProtocolVersion(requested: string): string {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/**
 * The stored `initialize` params of a session as they are replayed: checked against the SDK's
 * schema (a store returns whatever its storage holds) and with the version the session speaks.
 * Records that kept the version the client asked for, one the SDK does not speak, are replayed
 * with the version the server negotiated for them. A string is why they cannot be replayed.
 */
export function replayableInitialize(stored: unknown): InitializeRequest['params'] | string {
  const parsed = InitializeRequestParamsSchema.safeParse(stored);
  if (!parsed.success) {
    return messages.initializeParamsInvalid(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'params'}: ${issue.message}`));
  }
  return { ...(stored as InitializeRequest['params']), protocolVersion: negotiatedProtocolVersion(parsed.data.protocolVersion) };
}

/**
 * Brings a fresh SDK transport (its session id generator returning the stored id, its server
 * connected) to where the client left the session, with the SDK's public API only: the
 * `initialize` params and then `notifications/initialized` (with the negotiated version in
 * its `Mcp-Protocol-Version` header, as the client sends it) go through `handleRequest` as
 * requests that reach no socket, so the client keeps its session id and sends nothing again.
 * Throws, saying which message the SDK refused, when it refuses one.
 */
export async function replayInitialize(
  transport: NodeStreamableHttpServerTransport,
  path: string,
  sessionId: string,
  initialize: InitializeRequest['params'],
): Promise<void> {
  await post(transport, path, { jsonrpc: '2.0', id: 0, method: 'initialize', params: initialize });
  await post(
    transport,
    path,
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { 'mcp-session-id': sessionId, 'mcp-protocol-version': initialize.protocolVersion },
  );
}

/** One POST that no client sent: its answer is read by nobody. */
async function post(
  transport: NodeStreamableHttpServerTransport,
  path: string,
  body: JSONRPCMessage,
  extra: Record<string, string> = {},
): Promise<void> {
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
  await transport.handleNodeRequest(req, res, body);
  if (res.statusCode >= 400) {
    throw new Error(messages.replayRefused('method' in body ? body.method : 'message', res.statusCode));
  }
}
