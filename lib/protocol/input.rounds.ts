import { Inject, Injectable } from '@nestjs/common';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type ClientCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { MCP_INPUT_REQUEST_OPTIONS, type McpResolvedInputRequestOptions } from './input-request-options.interface.js';
import { CAPABILITY_OF_INPUT_REQUEST, isInputRequired, type McpInputRequest, type McpInputRequired } from '../results/input-required.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { JSON_RPC_INTERNAL_ERROR, JSON_RPC_INVALID_REQUEST, MCP_MISSING_CLIENT_CAPABILITY_CODE } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import type { McpCallRound } from './mcp-call-context.js';
import * as messages from './protocol.messages.js';

/** The result schema of each kind of input request, as the client answers it. */
const RESULT_SCHEMA = {
  'elicitation/create': ElicitResultSchema,
  'sampling/createMessage': CreateMessageResultSchema,
  'roots/list': ListRootsResultSchema,
} as const;

/**
 * The rounds of one call whose handler returns `mcpInputRequired(...)`. A 2026-07-28 call has
 * one round here: its input-required result goes to the client, which calls again. On a
 * 2025-11-25 session the module plays the client's part: it sends each input request to the
 * client on the call's own stream (`elicitation/create`, `sampling/createMessage`,
 * `roots/list`), then calls the handler again with the answers and its `requestState`, at
 * most `inputRequests.maxRounds` times. So one handler serves both eras.
 */
@Injectable()
export class McpInputRounds {
  constructor(@Inject(MCP_INPUT_REQUEST_OPTIONS) private readonly options: McpResolvedInputRequestOptions) {}

  /** Runs `round` (the call's handler, one round) until it answers something else than an input request, in the 2025 era. */
  async run<T>(
    session: McpSession,
    name: string,
    extra: McpToolContext['extra'],
    first: McpCallRound,
    round: (current: McpCallRound) => Promise<T | McpInputRequired>,
  ): Promise<T | McpInputRequired> {
    let current = first;
    for (let rounds = 1; ; rounds++) {
      const result = await round(current);
      if (!isInputRequired(result) || session.kind === 'modern') {
        return result;
      }
      if (rounds >= this.options.maxRounds) {
        throw new JsonRpcError(JSON_RPC_INTERNAL_ERROR, messages.tooManyRounds(name, this.options.maxRounds));
      }
      current = { inputResponses: await this.fulfil(session, name, extra, result), requestState: result.requestState };
    }
  }

  /** Sends the round's requests to the client, one after the other, and answers its results by key. */
  private async fulfil(
    session: McpSession,
    name: string,
    extra: McpToolContext['extra'],
    result: McpInputRequired,
  ): Promise<Record<string, unknown>> {
    if (session.kind === 'stateless') {
      throw new JsonRpcError(JSON_RPC_INVALID_REQUEST, messages.inputRequestsNeedStream(name));
    }
    const declared: ClientCapabilities = session.server?.getClientCapabilities() ?? {};
    const responses: Record<string, unknown> = {};
    for (const [key, request] of Object.entries(result.inputRequests)) {
      const capability = CAPABILITY_OF_INPUT_REQUEST[request.method];
      if (capability === undefined || !(capability in declared)) {
        throw new JsonRpcError(
          MCP_MISSING_CLIENT_CAPABILITY_CODE,
          messages.missingClientCapability(request.method, capability ?? request.method),
          {
            requiredCapabilities: { [capability ?? request.method]: {} },
          },
        );
      }
      responses[key] = await this.send(extra, request);
    }
    return responses;
  }

  private send(extra: McpToolContext['extra'], request: McpInputRequest): Promise<unknown> {
    return extra.sendRequest({ method: request.method, params: request.params ?? {} } as never, RESULT_SCHEMA[request.method], {
      timeout: this.options.timeoutMs,
      signal: extra.signal,
    });
  }
}
