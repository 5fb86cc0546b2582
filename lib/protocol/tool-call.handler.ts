import { Inject, Injectable } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toStateValue } from '../machines/state-value.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import type { WorkflowCallOutcome } from '../gating/workflow-call-outcome.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import { accessRefused, toCallFailure } from './call-failure.mapper.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { MCP_STATE_META_KEY } from '../mcp.constants.js';
import { JSON_RPC_INVALID_PARAMS } from './json-rpc.codes.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { createCallContext, type McpCallRound } from './mcp-call-context.js';
import { McpInputRounds } from './input-required.rounds.js';
import type { McpInputRequired } from '../results/input-required.result.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { WorkflowAttemptRecorder } from '../gating/workflow-attempts.recorder.js';
import { McpShutdownDrain } from './mcp-shutdown.drain.js';
import * as messages from './protocol.messages.js';
import { toolErrorResult } from '../results/tool-result.mapper.js';
import { announceMenuChanges, callExchange, sessionCallRequest } from './handler-run.js';
import { ToolMenuService } from '../sessions/tool-menu.service.js';

/**
 * Answers `tools/call`: checks the request and the arguments, runs the handler through the
 * Nest pipeline (where the gate owns the workflow part of the call), maps the outcome to a
 * tool result, and tells the calling session in-band when its menu changed.
 */
@Injectable()
export class ToolCallHandler {
  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly tools: McpToolRegistry,
    private readonly menu: ToolMenuService,
    private readonly drain: McpShutdownDrain,
    private readonly gate: WorkflowGate,
    private readonly access: McpAccessPolicy,
    private readonly attempts: WorkflowAttemptRecorder,
    private readonly rounds: McpInputRounds,
  ) {}

  /**
   * Answers one `tools/call`; `round` is what a 2026-07-28 retry brought (the client's
   * capabilities, its answers, the opened `requestState`). A handler that asks for input
   * answers an {@link McpInputRequired} in 2026-07-28 (the caller seals it), and is run again
   * with the client's answers on a 2025-11-25 session.
   */
  async handle(
    session: McpSession,
    params: unknown,
    extra: McpToolContext['extra'],
    round: McpCallRound = {},
  ): Promise<CallToolResult | McpInputRequired> {
    session.touch();
    const exchange = callExchange(session, extra);
    const { name, args } = this.readParams(params);
    const tool = this.tools.get(name);
    if (!tool) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.unknownTool(name));
    }
    const denied = this.access.refusal(tool, await this.access.grantsOf(extra.authInfo));
    if (denied) {
      this.attempts.accessRefused(tool, args, extra.authInfo?.clientId, session, denied);
      throw accessRefused(denied);
    }
    const parsed = tool.inputSchema.safeParse(args);
    if (!parsed.success) {
      return toolErrorResult(messages.invalidArguments(tool.name, parsed.error.issues));
    }
    const input = parsed.data as Record<string, unknown>;
    return this.rounds.run(session, tool.name, extra, round, async (current) => {
      const context = createCallContext(session, tool.name, extra, undefined, current);
      const outcome = await this.gate.run(sessionCallRequest(tool, session, input, context, exchange, this.drain.signal));
      const result = this.answer(outcome);
      await announceMenuChanges(this.menu, session, outcome, extra);
      return result;
    });
  }

  /** The tool name and arguments of a `tools/call`; a malformed request is -32602 with a plain reason. */
  private readParams(params: unknown): { name: string; args: Record<string, unknown> } {
    const { name, arguments: args } = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.callNeedsName());
    }
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.callArgumentsNotObject(name));
    }
    return { name, args: (args ?? {}) as Record<string, unknown> };
  }

  /** What the call answers: its result, with the state it left its instance in; the question it asks; or its failure. */
  private answer(outcome: WorkflowCallOutcome): CallToolResult | McpInputRequired {
    switch (outcome.status) {
      case 'asking':
        return outcome.question;
      case 'failed':
        return this.failure(outcome.call.tool, outcome.error);
      case 'answered':
        return this.withState(outcome, outcome.result as CallToolResult);
    }
  }

  /** `result` with `_meta["nestjs-mcp-fsm/state"]`: the state the call left its instance in, and the tools allowed there. */
  private withState({ call, instance, state }: WorkflowCallOutcome, result: CallToolResult): CallToolResult {
    if (!instance || state === undefined || state === null) {
      return result;
    }
    const allowedTools = this.tools.usableBy(this.tools.allowedNames(instance.machine, state), call.caller.grants);
    const gate = { machine: instance.machine, state: toStateValue(state), allowedTools };
    return { ...result, _meta: { ...result._meta, [MCP_STATE_META_KEY]: gate } };
  }

  /** A tool answers a failure as an error result, except a protocol-level one, and a refusal in `refusal: 'jsonrpc'` mode. */
  private failure(tool: McpHandlerDefinition, error: unknown): CallToolResult {
    const failure = toCallFailure(tool, error);
    if (!failure.toolResult || (failure.refusal && this.options.refusal === 'jsonrpc')) {
      throw failure.error;
    }
    return failure.toolResult;
  }
}
