import type { INestApplicationContext } from '@nestjs/common';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ClientCapabilities, Implementation, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { McpInMemoryConnections } from '../transports/in-memory.connections.js';
import * as messages from './testing.messages.js';

/** Who calls, as a verified bearer token says: `clientId` (the principal), `scopes`, and what your verifier puts in `extra`. */
export type McpTestCaller = Omit<AuthInfo, 'token'> & {
  /** The token itself, as `ctx.authInfo.token` shows it. @default 'mcp-test-client' */
  token?: string;
};

/** Options of {@link createMcpTestClient}. */
export interface McpTestClientOptions {
  /**
   * Who calls. The gate, `@McpRequire` scopes and roles (`auth.roles` runs on it), handle
   * ownership and `ctx.authInfo` see it as they see the `AuthInfo` of a verified HTTP token.
   * @default an anonymous caller
   */
  auth?: McpTestCaller;
  /** What the client declares in `initialize` (`elicitation`, `sampling`, `roots`, `tasks`...). @default none */
  capabilities?: ClientCapabilities;
  /** The client's name and version in `initialize`. @default { name: 'mcp-test-client', version: '1.0.0' } */
  clientInfo?: Implementation;
  /** With several `McpModule`s in the app, the `serverId` of the one to connect to. @default the only one */
  server?: string;
}

/**
 * An official SDK `Client`, connected in memory (no port, no HTTP) to the app's MCP server as
 * a session of its own: every tool, prompt and resource answers as over a stateful HTTP
 * session (menus per state, refusals, `list_changed`, confirmations when the client declares
 * `elicitation` and handles `elicitation/create`). Initialises the app if it is not yet.
 * `client.close()` ends the connection; `app.close()` ends every one still open.
 *
 * @example
 * const app = await Test.createTestingModule({ imports: [AppModule] }).compile();
 * const client = await createMcpTestClient(app.createNestApplication(), {
 *   auth: { clientId: 'alice', scopes: ['invoices:approve'] },
 * });
 * const { tools } = await client.listTools();
 */
export async function createMcpTestClient(app: INestApplicationContext, options: McpTestClientOptions = {}): Promise<Client> {
  await app.init();
  const connections = serverOf(app, options.server);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const authInfo = options.auth && { token: 'mcp-test-client', ...options.auth };
  await connections.connect(serverSide, authInfo);
  const client = new Client(options.clientInfo ?? { name: 'mcp-test-client', version: '1.0.0' }, {
    capabilities: options.capabilities ?? {},
  });
  await client.connect(authInfo ? new CallerTransport(clientSide, authInfo) : clientSide);
  return client;
}

/** The in-memory server of the app's `McpModule` named `server` (the only one when not named). */
function serverOf(app: INestApplicationContext, server: string | undefined): McpInMemoryConnections {
  let servers: McpInMemoryConnections[];
  try {
    servers = app.get(McpInMemoryConnections, { strict: false, each: true });
  } catch {
    servers = [];
  }
  const ids = servers.map((candidate) => candidate.serverId);
  if (server !== undefined) {
    const named = servers.find((candidate) => candidate.serverId === server);
    if (!named) throw new Error(messages.unknownServer(server, ids));
    return named;
  }
  if (servers.length !== 1) throw new Error(servers.length ? messages.serverNotNamed(ids) : messages.noServer());
  return servers[0];
}

/** The client end of an in-memory pair whose every message carries the caller's `authInfo`, as each HTTP request carries its token. */
class CallerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];

  constructor(
    private readonly inner: InMemoryTransport,
    private readonly authInfo: AuthInfo,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => this.onmessage?.(message, extra);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, { relatedRequestId: options?.relatedRequestId, authInfo: this.authInfo });
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
