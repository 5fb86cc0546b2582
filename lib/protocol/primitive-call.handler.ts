import { Injectable } from '@nestjs/common';
import type { CompleteResult, GetPromptResult, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_URI_LENGTH } from '../client-input/client-input.limits.js';
import type { McpCompleter } from '../decorators/mcp-completer.type.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { isWellFormedHandle } from '../gating/workflow-handle.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { mayAccess } from '../gating/workflow-access.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { JSON_RPC_INVALID_PARAMS, MCP_RESOURCE_NOT_FOUND_CODE } from '../results/json-rpc.codes.js';
import { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { announceMenuChanges, callExchange, sessionCallRequest } from './handler-run.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { createCallContext, type McpCallRound } from './mcp-call-context.js';
import { McpInputRounds } from './input.rounds.js';
import type { McpInputRequired } from '../results/input-required.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { McpShutdownDrain } from './mcp-shutdown.drain.js';
import type { McpCallResults } from '../results/call-result.builder.js';
import { McpAccessPolicy } from '../auth/mcp-access.policy.js';
import { accessRefused, toCallFailure } from './call-failure.mapper.js';
import * as messages from './protocol.messages.js';
import { ToolMenuService } from '../sessions/tool-menu.service.js';

/** `completion/complete` sends at most this many values (MCP spec). */
const MAX_COMPLETIONS = 100;

type Extra = McpToolContext['extra'];

/**
 * Answers `prompts/get`, `resources/read` and `completion/complete`: the handler runs through
 * the Nest pipeline and the gate like a tool, and any refusal or failure is a JSON-RPC error
 * (these methods have no error results): a refusal carries the same `data` as a tool's.
 */
@Injectable()
export class PrimitiveCallHandler {
  constructor(
    private readonly primitives: McpPrimitiveRegistry,
    private readonly menu: ToolMenuService,
    private readonly machines: McpMachineRegistry,
    private readonly store: FsmStoreAdapter,
    private readonly drain: McpShutdownDrain,
    private readonly gate: WorkflowGate,
    private readonly access: McpAccessPolicy,
    private readonly rounds: McpInputRounds,
  ) {}

  /** Answers `prompts/get`; `round` as for a tool call (see `ToolCallHandler.handle`). */
  async getPrompt(
    session: McpSession,
    params: { name: string; arguments?: Record<string, string> },
    extra: Extra,
    round: McpCallRound = {},
  ): Promise<GetPromptResult | McpInputRequired> {
    const prompt = this.primitives.prompt(params.name);
    if (!prompt) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.unknownPrompt(params.name));
    }
    return this.run(session, prompt, params.arguments ?? {}, extra, round);
  }

  /** Answers `resources/read`; `round` as for a tool call (see `ToolCallHandler.handle`). */
  async readResource(
    session: McpSession,
    uri: string,
    extra: Extra,
    round: McpCallRound = {},
  ): Promise<ReadResourceResult | McpInputRequired> {
    const match = this.primitives.match(checkUri('resources/read', uri));
    if (!match) {
      throw new JsonRpcError(MCP_RESOURCE_NOT_FOUND_CODE, messages.unknownResource(uri), { uri });
    }
    return this.run(session, match.resource, match.args, extra, round, uri);
  }

  /**
   * Subscribes the session to `uri`: when the workflow instance the resource shows moves
   * (here or, with a relay, in another process), the session gets
   * `notifications/resources/updated`. A handle must be the caller's. A resource outside any
   * workflow is accepted and never announced (its changes are the app's to know).
   */
  async subscribe(session: McpSession, uri: string, extra: Extra): Promise<void> {
    const match = this.primitives.match(checkUri('resources/subscribe', uri));
    if (!match) {
      throw new JsonRpcError(MCP_RESOURCE_NOT_FOUND_CODE, messages.unknownResource(uri), { uri });
    }
    await this.checkAccess(match.resource, extra);
    const { role } = match.resource;
    if (role.kind !== 'ungated') {
      this.menu.subscribe(session, await this.instanceKey(session, extra, role.machine, match.args, uri), uri);
    }
  }

  unsubscribe(session: McpSession, uri: string): void {
    this.menu.unsubscribe(session, checkUri('resources/unsubscribe', uri));
  }

  /** Values for an argument of a prompt or a variable of a template the session is shown; none for anything else. */
  async complete(
    session: McpSession,
    ref: { type: string; name?: string; uri?: string },
    argument: { name: string; value: string },
    context: Record<string, string> = {},
  ): Promise<CompleteResult> {
    const definition =
      ref.type === 'ref/prompt'
        ? this.primitives.prompt(ref.name ?? '')
        : this.primitives.template(checkUri('completion/complete', ref.uri ?? ''));
    const completer: McpCompleter | undefined = definition?.completers[argument.name];
    if (!definition || !completer || !this.menu.shows(session, definition)) {
      return { completion: { values: [], total: 0, hasMore: false } };
    }
    const values = await completer(argument.value, { arguments: context });
    return { completion: { values: values.slice(0, MAX_COMPLETIONS), total: values.length, hasMore: values.length > MAX_COMPLETIONS } };
  }

  /** Runs a prompt or resource handler; its value as the method's result, any failure as a JSON-RPC error. */
  private async run<K extends 'prompt' | 'resource'>(
    session: McpSession,
    definition: McpHandlerDefinition & { kind: K },
    args: Record<string, unknown>,
    extra: Extra,
    round: McpCallRound,
    uri?: string,
  ): Promise<McpCallResults[K] | McpInputRequired> {
    session.touch();
    const exchange = callExchange(session, extra);
    await this.checkAccess(definition, extra);
    const parsed = definition.inputSchema.safeParse(args);
    if (!parsed.success) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.invalidArguments(definition.name, parsed.error.issues));
    }
    const input = parsed.data as Record<string, unknown>;
    return this.rounds.run(session, definition.name, extra, round, async (current) => {
      const context = createCallContext(session, definition.name, extra, uri, current);
      const outcome = await this.gate.run(sessionCallRequest(definition, session, input, context, exchange, this.drain.calls));
      await announceMenuChanges(this.menu, session, outcome, extra);
      switch (outcome.status) {
        case 'asking':
          return outcome.question;
        case 'failed':
          throw toCallFailure(definition, outcome.error).error;
        case 'answered':
          return outcome.result as McpCallResults[K];
      }
    });
  }

  /** Refuses a caller that lacks what the definition requires (`@McpRequire`), before anything of it runs. */
  private async checkAccess(definition: McpHandlerDefinition, extra: Extra): Promise<void> {
    const denied = this.access.refusal(definition, await this.access.grantsOf(extra.authInfo));
    if (denied) {
      throw accessRefused(denied);
    }
  }

  /** Store key of the caller's instance a resource URI shows: the session's, or the handle in the URI when the caller may see it. */
  private async instanceKey(
    session: McpSession,
    extra: Extra,
    machine: string,
    args: Record<string, string>,
    uri: string,
  ): Promise<string> {
    const handleKey = this.machines.machine(machine).stateHandleKey;
    if (!handleKey) {
      const storeKey = session.sessionStoreKey(machine);
      if (storeKey === undefined) {
        throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.subscriptionNeedsSession(uri, machine));
      }
      return storeKey;
    }
    const handle = args[handleKey];
    const storeKey = isWellFormedHandle(handle) ? formatInstanceKey({ machine, scope: 'handle', id: handle }) : undefined;
    const snapshot = storeKey === undefined ? undefined : await this.store.load(storeKey);
    const auth = { authInfo: extra.authInfo, grants: session.grants };
    if (!snapshot || !mayAccess(auth, this.machines.machine(machine), { machine, scope: 'handle', handle }, snapshot)) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.subscriptionUnknownHandle(uri, machine, handleKey));
    }
    return storeKey!;
  }
}

/** `uri`, when it is within {@link MAX_URI_LENGTH}; a longer one is refused (-32602) before anything matches it. */
function checkUri(method: string, uri: string): string {
  if (uri.length > MAX_URI_LENGTH) {
    throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, messages.uriTooLong(method, uri.length, MAX_URI_LENGTH));
  }
  return uri;
}
