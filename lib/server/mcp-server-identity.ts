import type { Server } from '@modelcontextprotocol/sdk/server/index.js';

/** Who this server is: what `initialize` says, and its id among the app's McpModules. */
export interface McpServerIdentity {
  name: string;
  version: string;
  serverId: string;
  instructions?: string;
  /** The module option `configureServer`: called with each connection's SDK `Server` before it connects. */
  configureServer?: (server: Server, connection: { kind: 'stateful' | 'stateless' | 'stdio'; sessionId?: string }) => void;
}

/** Injection token of the {@link McpServerIdentity}. */
export const MCP_SERVER_IDENTITY = Symbol.for('nestjs-mcp-fsm:McpServerIdentity');
