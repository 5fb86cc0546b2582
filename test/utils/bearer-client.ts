import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What one HTTP response of a {@link BearerClient} said, in the parts auth tests read. */
export interface SeenResponse {
  status: number;
  wwwAuthenticate: string | null;
}

/**
 * An SDK v1 client whose bearer token can change between requests on the same session (a
 * step-up), recording the status and `WWW-Authenticate` of every response.
 */
export interface BearerClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** The token sent from the next request on (`undefined`: none). */
  token: string | undefined;
  readonly responses: SeenResponse[];
  listChanged: () => number;
  names: () => Promise<string[]>;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
  close: () => Promise<void>;
}

/** Connects an SDK v1 client to `url` with `token` (changeable later), opening a session on a stateful server. */
export async function connectBearerClient(url: URL, token: string | undefined): Promise<BearerClient> {
  const responses: SeenResponse[] = [];
  const state = { token };
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      if (state.token !== undefined) {
        headers.set('Authorization', `Bearer ${state.token}`);
      }
      const response = await fetch(input, { ...init, headers });
      responses.push({ status: response.status, wwwAuthenticate: response.headers.get('www-authenticate') });
      return response;
    },
  });
  const client = new Client({ name: 'auth-e2e', version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes += 1;
  });
  await client.connect(transport);
  return {
    client,
    transport,
    get token() {
      return state.token;
    },
    set token(next: string | undefined) {
      state.token = next;
    },
    responses,
    listChanged: () => changes,
    names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    close: () => client.close(),
  };
}

/** A raw JSON-RPC POST to `url` with `headers`: its status, `WWW-Authenticate` and parsed body. */
export async function postJsonRpc(
  url: URL | string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; wwwAuthenticate: string | null; body: unknown; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // An SSE body stays text.
  }
  return { status: response.status, wwwAuthenticate: response.headers.get('www-authenticate'), body: parsed, headers: response.headers };
}

/** An `initialize` request body. */
export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
};
