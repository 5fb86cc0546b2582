import type { INestApplication } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  isInitializeRequest,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { request as httpRequest } from 'node:http';

/** An SDK client connected over Streamable HTTP, counting the list_changed notifications it got. */
export interface TestClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  listChanged: () => number;
  /** The questions the server asked this client's user (`elicitation/create`), in order. */
  asked: ElicitRequest['params'][];
  names: () => Promise<string[]>;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  close: () => Promise<void>;
}

/** The URL of the app's MCP endpoint (the app listens on an ephemeral loopback port). */
export async function mcpUrl(app: INestApplication, path = '/mcp'): Promise<URL> {
  const address = app.getHttpServer().address() as { port: number };
  return new URL(`http://127.0.0.1:${address.port}${path}`);
}

/**
 * Connects a new SDK client (a new session on stateful servers), sending `headers` on every
 * request. With `protocolVersion`, its `initialize` asks for that version instead of the
 * SDK's latest (as a client newer than the server does); it then speaks what the server answers.
 * With `elicitation`, it declares the elicitation capability and its user answers every
 * question so (a confirmed tool such as the sample's `invoice.discharge` asks one).
 */
export async function connectClient(
  url: URL,
  headers?: Record<string, string>,
  { protocolVersion, elicitation }: { protocolVersion?: string; elicitation?: ElicitResult } = {},
): Promise<TestClient> {
  const client = new Client({ name: 'e2e', version: '1.0.0' }, { capabilities: elicitation ? { elicitation: {} } : {} });
  const asked: ElicitRequest['params'][] = [];
  if (elicitation) {
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return elicitation;
    });
  }
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes += 1;
  });
  const transport = new StreamableHTTPClientTransport(url, headers ? { requestInit: { headers } } : undefined);
  if (protocolVersion) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
      send(isInitializeRequest(message) ? { ...message, params: { ...message.params, protocolVersion } } : message, options);
  }
  await client.connect(transport);
  return {
    client,
    transport,
    listChanged: () => changes,
    asked,
    names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/** What a person who says yes answers to a plain confirmation. */
export const ACCEPT: ElicitResult = { action: 'accept', content: {} };

/** The first text content of a result. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first?.type === 'text' ? first.text : '';
}

/** Waits until `check` holds (notifications and clean-ups happen asynchronously). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error('condition not met in time');
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The text a model reads for an unexpected error: a generic message with a correlation id, never the error's own text. */
export function internalErrorText(tool: string): RegExp {
  return new RegExp(`^"${tool.replace(/\./g, '\\.')}" failed with an internal error \\(error id [0-9a-f]{12}\\);`);
}

/** A raw 2025-era `initialize` request, for tests that speak HTTP without an SDK client. */
export const RAW_INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

/** POSTs `body` (JSON-encoded unless it is already a string) to an MCP endpoint with the headers Streamable HTTP wants. */
export function postMcp(url: URL, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** A response read whole by {@link postMcpRaw}. */
export interface RawMcpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** POSTs `body` (JSON-encoded) to an MCP endpoint over `node:http`, with headers that fetch does not send as given (Origin, Host). */
export function postMcpRaw(url: URL, body: unknown, headers: Record<string, string> = {}): Promise<RawMcpResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
