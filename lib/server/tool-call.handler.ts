import { HttpException, Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode, type CallToolRequest, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpToolRegistry } from '../discovery/mcp-tool.registry.js';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import { FsmCall, type MutableToolContext } from '../gating/fsm-call.js';
import { FsmRefusal } from '../gating/fsm-refusal.error.js';
import { instanceStoreKey, isWellFormedHandle } from '../gating/fsm-handle.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import type { McpToolContext } from '../interfaces/mcp-tool-context.interface.js';
import { MCP_ERROR_META_KEY, MCP_REFUSAL_JSONRPC_CODE, MCP_STATE_META_KEY } from '../mcp.constants.js';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import * as messages from '../mcp.messages.js';
import { JsonRpcError } from './json-rpc.error.js';
import type { McpSession } from './mcp-session.js';
import { ToolMenuService } from './tool-menu.service.js';
import { assertToolOutput } from './tool-output.validator.js';
import { errorMessage, toCallToolResult, toolErrorResult } from './tool-result.mapper.js';

/**
 * Answers `tools/call`: validates the arguments, runs the handler through the Nest pipeline
 * (the gate's guard and interceptor included), maps the outcome to a tool result, releases
 * any claim left over, and tells the calling session in-band when its menu changed.
 */
@Injectable()
export class ToolCallHandler {
  private readonly logger = new Logger('McpToolCall');

  constructor(
    @Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions,
    private readonly tools: McpToolRegistry,
    private readonly machines: McpMachineRegistry,
    private readonly menu: ToolMenuService,
  ) {}

  async handle(session: McpSession, params: CallToolRequest['params'], extra: McpToolContext['extra']): Promise<CallToolResult> {
    session.touch();
    const tool = this.tools.get(params.name);
    if (!tool) {
      throw new JsonRpcError(ErrorCode.InvalidParams, messages.unknownTool(params.name));
    }
    const parsed = tool.inputSchema.safeParse(params.arguments ?? {});
    if (!parsed.success) {
      return toolErrorResult(messages.invalidArguments(tool.name, parsed.error.issues));
    }
    const args = parsed.data as Record<string, unknown>;
    const context: MutableToolContext = {
      toolName: tool.name,
      sessionId: session.id,
      authInfo: extra.authInfo,
      sessionStoreKey: (machine) => session.sessionStoreKey(machine),
      extra,
    };
    const call = new FsmCall(tool, session, args, context);
    let result: CallToolResult;
    try {
      const value = await tool.invoke([args, context, call]);
      result = call.refusal ? this.failure(call, call.refusal) : this.success(call, value);
    } catch (error) {
      result = this.failure(call, call.refusal ?? error);
    } finally {
      await call.settle().catch((error: unknown) => this.logger.error(messages.releaseFailed(tool.name, error)));
    }
    if (await this.menuChanged(call, result)) {
      await extra.sendNotification({ method: 'notifications/tools/list_changed' });
    }
    return result;
  }

  /** Whether the call changed its own session's menu: by a transition, or by using a handle it did not know. */
  private async menuChanged(call: FsmCall, result: CallToolResult): Promise<boolean> {
    if (call.nextState !== undefined) {
      const { machine, storeKey } = call.instance!;
      return this.menu.applyTransition(call.session, machine, storeKey, call.nextState);
    }
    const machine = call.tool.workflow;
    const key = machine && !call.tool.binding && !call.tool.start && this.machines.machine(machine).stateHandleKey;
    const handle = key ? call.args[key] : undefined;
    if (!machine || result.isError || !isWellFormedHandle(handle)) {
      return false;
    }
    return this.menu.adoptHandle(call.session, machine, instanceStoreKey(machine, handle)).catch(() => false);
  }

  private success(call: FsmCall, value: unknown): CallToolResult {
    const instance = call.instance;
    if (!call.tool.binding && !call.tool.start) {
      assertToolOutput(call.tool, value, {});
    }
    const result = toCallToolResult(value, call.resultExtra());
    const state = call.nextState ?? call.context.state;
    if (!instance || state === undefined) {
      return result;
    }
    const gate = { machine: instance.machine, state, allowedTools: this.tools.allowedNames(instance.machine, state) };
    return { ...result, _meta: { ...result._meta, [MCP_STATE_META_KEY]: gate } };
  }

  private failure(call: FsmCall, error: unknown): CallToolResult {
    if (error instanceof FsmRefusal) {
      if (this.options.refusal === 'jsonrpc') {
        throw new JsonRpcError(MCP_REFUSAL_JSONRPC_CODE, error.message, error.data);
      }
      return toolErrorResult(error.message, { [MCP_ERROR_META_KEY]: error.data });
    }
    if (!(error instanceof HttpException)) {
      this.logger.error(messages.handlerFailed(call.tool.name, error), error instanceof Error ? error.stack : undefined);
    }
    return toolErrorResult(errorMessage(error));
  }
}
