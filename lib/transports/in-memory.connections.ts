import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { McpServerFactory } from '../protocol/mcp-server.factory.js';
import { McpSessionRegistry } from '../sessions/mcp-session.registry.js';

/**
 * Serves MCP on transports inside the process, for tests (`createMcpTestClient`): each
 * connection is a session of its own, keyed by a fresh id, whose caller is the `authInfo`
 * given (what a verified bearer token gives an HTTP session: its menu's grants, the owner of
 * the handles it starts). The requests carry that `authInfo` themselves, as HTTP requests do.
 */
@Injectable()
export class McpInMemoryConnections {
  constructor(
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    private readonly factory: McpServerFactory,
    private readonly sessions: McpSessionRegistry,
    private readonly access: McpAccessPolicy,
  ) {}

  /** The `serverId` of the module this serves. */
  get serverId(): string {
    return this.identity.serverId;
  }

  /**
   * Connects a new session's SDK server to `transport` (the server end of a linked pair). It
   * is one of the module's live sessions, told of transitions, until the transport closes
   * (or the app does); its session-keyed instances stay in the store.
   */
  async connect(transport: Transport, authInfo?: AuthInfo): Promise<void> {
    const id = randomUUID();
    const session = this.factory.createSession('stdio', id, { scope: 'session', id }, authInfo?.clientId);
    this.sessions.regrant(session, await this.access.grantsOf(authInfo));
    this.sessions.add(id, session, () => session.server.close());
    await session.server.connect(transport);
    const closed = session.server.onclose;
    session.server.onclose = () => {
      this.sessions.remove(id);
      closed?.();
    };
  }
}
