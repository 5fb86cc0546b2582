import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import * as messages from '../mcp.messages.js';
import { JsonRpcError } from './json-rpc.error.js';
import { McpSession, type McpSessionKind } from './mcp-session.js';
import { ToolCallHandler } from './tool-call.handler.js';
import { ToolMenuService } from './tool-menu.service.js';

/**
 * Creates one SDK `Server` per connection (the SDK refuses a second `connect`), with
 * `tools/list` answered per session and `tools/call` routed through the gate.
 */
@Injectable()
export class McpServerFactory {
  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly menu: ToolMenuService,
    private readonly calls: ToolCallHandler,
  ) {}

  createSession(kind: McpSessionKind, id?: string, instanceKey?: string): McpSession {
    const server = new Server(
      { name: this.options.name, version: this.options.version },
      { capabilities: { tools: { listChanged: true } }, instructions: this.options.instructions },
    );
    const session = new McpSession(kind, server, id, instanceKey);
    server.setRequestHandler(ListToolsRequestSchema, async () => {
      session.touch();
      try {
        return { tools: await this.menu.list(session) };
      } catch (error) {
        throw new JsonRpcError(ErrorCode.InternalError, messages.menuUnavailable(error));
      }
    });
    server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.calls.handle(session, request.params, extra));
    return session;
  }
}
