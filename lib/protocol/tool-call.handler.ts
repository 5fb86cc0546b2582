import { HttpException, Inject, Injectable, Logger } from '@nestjs/common';
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { FsmCall } from '../gating/fsm-call.js';
import { FsmRefusal } from '../gating/fsm-refusal.error.js';
import { assertToolOutput, toCallToolResult } from './tool-output.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { MCP_ERROR_META_KEY, MCP_REFUSAL_JSONRPC_CODE, MCP_STATE_META_KEY } from '../mcp.constants.js';
import { FSM_GATE_OPTIONS, type FsmGateOptions } from '../gating/fsm-gate-options.interface.js';
import { JsonRpcError } from './json-rpc.error.js';
import { createCallContext } from './mcp-call-context.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { McpShutdownDrain } from '../transports/mcp-shutdown.drain.js';
import * as messages from './protocol.messages.js';
import { errorMessage, toolErrorResult } from './tool-result.mapper.js';
import { announceMenuChanges, runHandler } from './handler-run.js';
import { ToolMenuService } from '../sessions/tool-menu.service.js';

/**
 * Answers `tools/call`: checks the request and the arguments, runs the handler through the
 * Nest pipeline (where the gate owns the workflow part of the call), maps the outcome to a
 * tool result, and tells the calling session in-band when its menu changed.
 */
@Injectable()
export class ToolCallHandler {
  private readonly logger = new Logger('McpToolCall');

  constructor(
    @Inject(FSM_GATE_OPTIONS) private readonly options: FsmGateOptions,
    private readonly tools: McpToolRegistry,
    private readonly menu: ToolMenuService,
    private readonly drain: McpShutdownDrain,
  ) {}

  async handle(session: McpSession, params: unknown, extra: McpToolContext['extra']): Promise<CallToolResult> {
    session.touch();
    const { name, args } = this.readParams(params);
    const tool = this.tools.get(name);
    if (!tool) {
      throw new JsonRpcError(ErrorCode.InvalidParams, messages.unknownTool(name));
    }
    const parsed = tool.inputSchema.safeParse(args);
    if (!parsed.success) {
      return toolErrorResult(messages.invalidArguments(tool.name, parsed.error.issues));
    }
    const context = createCallContext(session, tool.name, extra);
    const outcome = await runHandler(tool, session, parsed.data as Record<string, unknown>, context, this.drain.signal);
    const result = outcome.ok ? this.settle(outcome.call, outcome.value) : this.failure(outcome.call, outcome.error);
    await announceMenuChanges(this.menu, session, outcome.call, extra);
    return result;
  }

  /** The tool name and arguments of a `tools/call`; a malformed request is -32602 with a plain reason. */
  private readParams(params: unknown): { name: string; args: Record<string, unknown> } {
    const { name, arguments: args } = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') {
      throw new JsonRpcError(ErrorCode.InvalidParams, messages.callNeedsName());
    }
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new JsonRpcError(ErrorCode.InvalidParams, messages.callArgumentsNotObject(name));
    }
    return { name, args: (args ?? {}) as Record<string, unknown> };
  }

  /** The result of a handler that returned; an invalid output is an error result. */
  private settle(call: FsmCall, value: unknown): CallToolResult {
    try {
      return this.success(call, value);
    } catch (error) {
      return this.failure(call, error);
    }
  }

  private success(call: FsmCall, value: unknown): CallToolResult {
    if (!call.tool.gated) {
      // A gated call's value was checked by the gate, before its transition was stored.
      assertToolOutput(call.tool, value, {});
    }
    const result = toCallToolResult(value, call.resultExtra());
    const state = call.state;
    if (!call.instance || state === undefined || state === null) {
      return result;
    }
    const { machine } = call.instance;
    const gate = { machine, state, allowedTools: this.tools.allowedNames(machine, state) };
    return { ...result, _meta: { ...result._meta, [MCP_STATE_META_KEY]: gate } };
  }

  private failure(call: FsmCall, error: unknown): CallToolResult {
    if (error instanceof JsonRpcError) {
      // A protocol-level answer (a missing client capability): the call fails as a request.
      throw error;
    }
    if (error instanceof FsmRefusal) {
      if (this.options.refusal === 'jsonrpc') {
        throw new JsonRpcError(MCP_REFUSAL_JSONRPC_CODE, error.message, error.data);
      }
      return toolErrorResult(error.message, { [MCP_ERROR_META_KEY]: error.data });
    }
    if (error instanceof HttpException) {
      return toolErrorResult(errorMessage(error));
    }
    const errorId = randomBytes(6).toString('hex');
    this.logger.error(messages.handlerFailed(call.tool.name, errorId, error), error instanceof Error ? error.stack : undefined);
    return toolErrorResult(messages.toolFailed(call.tool.name, errorId));
  }
}
