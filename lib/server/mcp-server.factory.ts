import { Inject, Injectable, Logger } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import { JsonRpcError } from './json-rpc.error.js';
import { McpSession, type McpSessionKind, type McpSessionScope } from './mcp-session.js';
import * as messages from './server.messages.js';
import { ToolCallHandler } from './tool-call.handler.js';
import { ToolMenuService } from './tool-menu.service.js';

/** `tools/call` with any params: the call handler checks them and answers -32602 in plain words. */
const LenientCallToolRequestSchema = z.object({ method: z.literal('tools/call'), params: z.unknown() });

/**
 * Creates one SDK `Server` per connection (the SDK refuses a second `connect`), with
 * `tools/list` answered per session and `tools/call` routed through the gate.
 */
@Injectable()
export class McpServerFactory {
  private readonly logger = new Logger('McpServer');

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
    private readonly menu: ToolMenuService,
    private readonly calls: ToolCallHandler,
  ) {}

  createSession(kind: McpSessionKind, id?: string, scope?: McpSessionScope, principal?: string): McpSession {
    const server = new Server(
      { name: this.options.name, version: this.options.version },
      { capabilities: { tools: { listChanged: true } }, instructions: this.options.instructions },
    );
    const session = new McpSession(kind, server, id, scope, principal);
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      session.touch();
      try {
        return { tools: await this.menu.list(session) };
      } catch (error) {
        this.logger.error(messages.menuFailed(error), error instanceof Error ? error.stack : undefined);
        throw new JsonRpcError(ErrorCode.InternalError, messages.menuUnavailable());
      }
    });
    // The Server's own tools/call registration validates params with zod first and answers a
    // malformed call with a zod dump; the Protocol's registration leaves checking to us.
    Protocol.prototype.setRequestHandler.call(server, LenientCallToolRequestSchema, (request, extra) =>
      this.calls.handle(session, request.params, extra),
    );
    return session;
  }
}
