import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import { McpServerFactory } from '../server/mcp-server.factory.js';
import { McpSessionRegistry } from '../server/mcp-session.registry.js';
import { attachmentScope } from './attachment-key.js';

/**
 * Serves MCP on stdin/stdout when `transports.stdio` is on: one client per process, whose
 * session-keyed instances use the in-process attachment identity. Nothing else may write
 * to stdout: send the application's logs to stderr.
 */
@Injectable()
export class StdioTransport implements OnApplicationBootstrap {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
    private readonly factory: McpServerFactory,
    private readonly sessions: McpSessionRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options.stdio) {
      return;
    }
    const session = this.factory.createSession('stdio', undefined, attachmentScope(this.options));
    await session.server.connect(new StdioServerTransport());
    this.sessions.add('stdio', session, () => session.server.close());
  }
}
