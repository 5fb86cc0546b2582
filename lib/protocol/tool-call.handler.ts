import { Inject, Injectable } from '@nestjs/common';
import type { CallToolResult, CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { toStateValue } from '../machines/state-value.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import type { WorkflowCallOutcome } from '../gating/workflow-call-outcome.js';
import type { McpHandlerDefinition, McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import { accessRefused, toCallFailure } from './call-failure.mapper.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { MCP_IDEMPOTENCY_KEY_META_KEY, MCP_STATE_META_KEY } from '../mcp.constants.js';
import { JSON_RPC_INVALID_PARAMS, JSON_RPC_METHOD_NOT_FOUND, MCP_MISSING_CLIENT_CAPABILITY_CODE } from '../results/json-rpc.codes.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { createCallContext, type McpCallRound } from './mcp-call-context.js';
import { McpInputRounds } from './input.rounds.js';
import type { McpInputRequired } from '../results/input-required.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { WorkflowAttemptRecorder } from '../gating/workflow-attempt.recorder.js';
import { McpShutdownDrain } from './mcp-shutdown.drain.js';
import * as messages from './protocol.messages.js';
import { toolErrorResult } from '../results/tool-result.mapper.js';
import { announceMenuChanges, callExchange, sessionCallRequest } from './handler-run.js';
import { ToolMenuService } from '../sessions/tool-menu.service.js';
import { declaresTasksExtension, legacyTask, modernCreatedTask, TASKS_EXTENSION_REQUIRED } from '../tasks/task-wire.js';
import type { McpTaskRecord } from '../stores/mcp-task-store.interface.js';
import * as taskMessages from '../tasks/tasks.messages.js';
import { TaskCallRunner, type TaskCallScope } from './task-call.runner.js';
import type { WorkflowIdempotency } from '../gating/workflow-call.js';
import { commitsStep } from '../gating/workflow-receipts.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { taskRequesterOf } from '../tasks/mcp-tasks.js';
import type { McpHttpExchange } from './mcp-http-request.storage.js';

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
    @Inject(WorkflowAttemptRecorder) private readonly attempts: WorkflowAttemptRecorder | null,
    private readonly rounds: McpInputRounds,
    private readonly taskCalls: TaskCallRunner,
    private readonly store: FsmStoreAdapter,
  ) {}

  /**
   * Answers one `tools/call`; `round` is what a 2026-07-28 retry brought (the client's
   * capabilities, its answers, the opened `requestState`). A handler that asks for input
   * answers an {@link McpInputRequired} in 2026-07-28 (the caller seals it), and is run again
   * with the client's answers on a 2025-11-25 session. A task-augmented call (`params.task`,
   * 2025-11-25) of a tool that accepts a task answers the task at once and runs in the background.
   */
  async handle(
    session: McpSession,
    params: unknown,
    extra: McpToolContext['extra'],
    round: McpCallRound = {},
  ): Promise<CallToolResult | McpInputRequired | CreateTaskResult> {
    session.touch();
    const exchange = callExchange(session, extra);
    const { name, args, task, idempotencyKey } = this.readParams(params);
    const tool = this.tools.get(name);
    if (!tool) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.unknownTool(name));
    }
    const idempotency = idempotencyKey === undefined ? undefined : this.keyOf(session, tool, idempotencyKey, extra.authInfo?.clientId);
    const denied = this.access.refusal(tool, await this.access.grantsOf(extra.authInfo));
    if (denied) {
      this.attempts?.accessRefused(tool, args, extra.authInfo, session, denied);
      throw accessRefused(denied);
    }
    const asTask = session.kind === 'modern' ? this.runsAsModernTask(tool, round) : this.runsAsTask(tool, task);
    const parsed = tool.inputSchema.safeParse(args);
    if (!parsed.success) {
      return toolErrorResult(messages.invalidArguments(tool.name, parsed.error.issues));
    }
    const input = parsed.data as Record<string, unknown>;
    if (asTask) {
      const ttl = session.kind === 'modern' ? undefined : task?.ttl;
      const record = await this.taskCalls.start(
        session,
        tool,
        input,
        extra,
        ttl,
        (scope) =>
          this.rounds.run(session, tool.name, scope.extra, round, (current) =>
            this.callOnce(session, tool, input, exchange, current, scope),
          ),
        idempotency?.key,
      );
      return session.kind === 'modern' ? (modernCreatedTask(record) as CreateTaskResult) : { task: legacyTask(record) };
    }
    return this.rounds.run(session, tool.name, extra, round, (current) =>
      this.callOnce(session, tool, input, exchange, current, { extra, cutoff: this.drain.calls, idempotency }),
    );
  }

  /**
   * The idempotency of a keyed in-band call: its key, its caller's. Refused (-32602) for a
   * caller nobody could tell apart, and for a workflow tool on a store that keeps no receipts
   * (a read, or a tool outside any workflow, runs every time: it commits no step).
   */
  private keyOf(session: McpSession, tool: McpToolDefinition, key: string, principal: string | undefined): WorkflowIdempotency {
    const requester = session.kind === 'modern' && principal === undefined ? undefined : taskRequesterOf(session, principal);
    if (requester === undefined) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.callIdempotencyKeyNeedsCaller(tool.name, IDEMPOTENCY_FIELD));
    }
    if (commitsStep(tool.role) && !this.store.supports.receipts) {
      throw new JsonRpcError(
        JSON_RPC_INVALID_PARAMS,
        messages.callIdempotencyKeyUnsupported(tool.name, IDEMPOTENCY_FIELD, this.store.name),
      );
    }
    return { key, requester };
  }

  /**
   * Carries on in the background the call of a task this process adopted after the process
   * running it stopped, as its recorded caller, with the task's idempotency key: a step the first
   * run stored answers from its receipt, else the call runs here, once.
   */
  carryOn(record: McpTaskRecord, session: McpSession, extra: McpToolContext['extra']): void {
    const { name, arguments: input } = record.request;
    this.taskCalls.carryOn(record, session, extra, async (scope) => {
      const tool = this.tools.get(name);
      if (!tool) throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.unknownTool(name));
      const denied = this.access.refusal(tool, session.grants);
      if (denied) throw accessRefused(denied);
      return this.rounds.run(session, name, scope.extra, {}, (current) => this.callOnce(session, tool, input, undefined, current, scope));
    });
  }

  /**
   * Whether a 2025-era call runs as a task: it asked for one (`params.task`) of a tool that
   * accepts one. A tool that requires a task called without one, and a task asked of a tool
   * that accepts none, are -32601 (the spec's answer for both).
   */
  private runsAsTask(tool: McpToolDefinition, task: { ttl?: number } | undefined): boolean {
    if (!task) {
      if (tool.taskSupport === 'required') throw new JsonRpcError(JSON_RPC_METHOD_NOT_FOUND, taskMessages.taskRequired(tool.name));
      return false;
    }
    if (!tool.taskSupport) throw new JsonRpcError(JSON_RPC_METHOD_NOT_FOUND, taskMessages.taskNotAccepted(tool.name));
    return true;
  }

  /**
   * Whether a 2026-07-28 call runs as a task (the tasks extension, SEP-2663): the server
   * decides, for a tool that accepts one, when the request declares the extension (a legacy
   * `params.task` is ignored). A tool that requires a task is -32021 without it. A tool that
   * gathers its input first (`taskAfterInput`) answers its first round in the request.
   */
  private runsAsModernTask(tool: McpToolDefinition, round: McpCallRound): boolean {
    if (!tool.taskSupport) return false;
    if (!declaresTasksExtension(round.clientCapabilities)) {
      if (tool.taskSupport === 'optional') return false;
      throw new JsonRpcError(MCP_MISSING_CLIENT_CAPABILITY_CODE, taskMessages.taskExtensionRequired(tool.name), TASKS_EXTENSION_REQUIRED);
    }
    return !tool.taskAfterInput || round.inputResponses !== undefined;
  }

  /**
   * Runs a 2026-07-28 task on again with the client's answers (`tasks/update` answered every
   * input request it waited for): the same call, a new round, in the background.
   */
  resume(session: McpSession, record: McpTaskRecord, extra: McpToolContext['extra'], round: McpCallRound): void {
    const { name, arguments: input } = record.request;
    this.taskCalls.resume(record, session, extra, async (scope) => {
      // A deployment may have removed the tool since the task began: the task fails, saying so.
      const tool = this.tools.get(name);
      if (!tool) throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.unknownTool(name));
      return this.rounds.run(session, name, scope.extra, round, (current) =>
        this.callOnce(session, tool, input, undefined, current, scope),
      );
    });
  }

  /**
   * One round of the call through the gate: its answer, after telling the session what it
   * changed of its menu. A task's call that could not run yet (its store is down; an adopted
   * call's instance still claimed) says so to its task, which tries it again later.
   */
  private async callOnce(
    session: McpSession,
    tool: McpToolDefinition,
    input: Record<string, unknown>,
    exchange: McpHttpExchange | undefined,
    current: McpCallRound,
    scope: Pick<TaskCallScope, 'extra' | 'cutoff'> & Partial<Omit<TaskCallScope, 'extra' | 'cutoff'>>,
  ): Promise<CallToolResult | McpInputRequired> {
    const context = createCallContext(session, tool.name, scope.extra, undefined, current);
    const request = { ...sessionCallRequest(tool, session, input, context, exchange, scope.cutoff), task: scope.task };
    // A store that keeps no receipts runs a task's workflow call without a key (the key of a tools/call was refused already).
    const idempotency = this.store.supports.receipts || !commitsStep(tool.role) ? scope.idempotency : undefined;
    const outcome = await this.gate.run({ ...request, idempotency });
    const refused = outcome.status === 'failed' ? outcome.refusal?.data.code : undefined;
    if (idempotency && (refused === 'STATE_UNAVAILABLE' || (refused === 'BUSY' && scope.adopted))) scope.later?.();
    const result = this.answer(outcome);
    if (outcome.status === 'answered' && outcome.waiting) scope.waits?.(outcome.waiting.statusMessage);
    await announceMenuChanges(this.menu, session, outcome, scope.extra);
    return result;
  }

  /** The tool name, arguments, task and idempotency key of a `tools/call`; a malformed request is -32602 with a plain reason. */
  private readParams(params: unknown): { name: string; args: Record<string, unknown>; task?: { ttl?: number }; idempotencyKey?: string } {
    const { name, arguments: args, task, _meta } = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
    if (typeof name !== 'string' || name === '') {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.callNeedsName());
    }
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.callArgumentsNotObject(name));
    }
    if (task !== undefined && (typeof task !== 'object' || task === null || Array.isArray(task))) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.callTaskNotObject(name));
    }
    const ttl = (task as { ttl?: unknown } | undefined)?.ttl;
    if (ttl !== undefined && ttl !== null && (typeof ttl !== 'number' || !Number.isFinite(ttl) || ttl < 0)) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.callTaskTtlInvalid(name));
    }
    const idempotencyKey = idempotencyKeyIn(name, _meta);
    return {
      name,
      args: (args ?? {}) as Record<string, unknown>,
      ...(task === undefined ? {} : { task: typeof ttl === 'number' ? { ttl } : {} }),
      ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
    };
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

/** Where a `tools/call` carries its idempotency key, as a refusal names it. */
const IDEMPOTENCY_FIELD = `params._meta["${MCP_IDEMPOTENCY_KEY_META_KEY}"]`;
/** The longest idempotency key (the receipt table's column). */
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Whether `text` has a control character (U+0000 to U+001F, U+007F), which a key never needs and some databases refuse. */
const hasControlCharacter = (text: string): boolean => [...text].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);

/** The idempotency key in a `tools/call`'s `_meta`, checked (-32602 naming the field for anything but 1 to 255 characters, none a control character). */
function idempotencyKeyIn(name: string, meta: unknown): string | undefined {
  const key = typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>)[MCP_IDEMPOTENCY_KEY_META_KEY] : undefined;
  if (key === undefined) return undefined;
  if (typeof key !== 'string' || key === '' || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || hasControlCharacter(key)) {
    throw new JsonRpcError(
      JSON_RPC_INVALID_PARAMS,
      messages.callIdempotencyKeyInvalid(name, IDEMPOTENCY_FIELD, MAX_IDEMPOTENCY_KEY_LENGTH),
    );
  }
  return key;
}
