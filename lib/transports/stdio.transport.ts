import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MCP_STDIO_OPTIONS, type McpResolvedStdioOptions } from './stdio-options.interface.js';
import { McpServerFactory } from '../protocol/mcp-server.factory.js';
import { McpSessionRegistry } from '../sessions/mcp-session.registry.js';
import { attachmentScope } from './attachment-key.js';
import { applicationLogsToStdout } from './stdout-logger.check.js';
import { stdioLogsToStdout } from './transports.messages.js';

/**
 * Serves MCP on stdin/stdout when `transports.stdio` is on: one client per process, whose
 * session-keyed instances use the in-process attachment identity. Nothing else may write
 * to stdout: send the application's logs to stderr (`McpStderrLogger`); a warning on stderr
 * says when Nest's console logger still prints to stdout.
 */
@Injectable()
export class StdioTransport implements OnApplicationBootstrap {
  constructor(
    @Inject(MCP_STDIO_OPTIONS) private readonly options: McpResolvedStdioOptions | null,
    private readonly factory: McpServerFactory,
    private readonly sessions: McpSessionRegistry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.options) {
      return;
    }
    const session = this.factory.createSession('stdio', undefined, attachmentScope(this.options.attachmentId));
    await session.server.connect(new StdioServerTransport());
    this.sessions.add('stdio', session, () => session.server.close());
    // Judged once startup is over: `app.useLogger()` right after creation (with `bufferLogs`) picks the logger.
    setImmediate(() => this.warnIfLogsReachStdout());
  }

  private warnIfLogsReachStdout(): void {
    if (applicationLogsToStdout()) {
      process.stderr.write(`${stdioLogsToStdout()}\n`);
    }
  }
}
