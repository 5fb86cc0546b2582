import { Injectable } from '@nestjs/common';
import {
  CreateMessageResultSchema,
  ElicitResultSchema,
  ListRootsResultSchema,
  type CallToolResult,
  type GetPromptResult,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpInputRequired, McpContext, McpPrompt, McpTool, type McpInputRequest, type McpToolContext } from '../../lib/index.js';

/** An elicitation of one string field, as the scenarios ask it. */
const askText = (message: string, field: string): McpInputRequest => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } },
});

const askSampling = (text: string, maxTokens: number): McpInputRequest => ({
  method: 'sampling/createMessage',
  params: { messages: [{ role: 'user', content: { type: 'text', text } }], maxTokens },
});

const askRoots: McpInputRequest = { method: 'roots/list', params: {} };

/** The accepted content of the elicitation answered under `key`, or `undefined` (missing, declined, or not an elicitation result). */
function accepted(ctx: McpToolContext, key: string): Record<string, unknown> | undefined {
  const parsed = ElicitResultSchema.safeParse(ctx.inputResponses?.[key]);
  return parsed.success && parsed.data.action === 'accept' ? (parsed.data.content ?? {}) : undefined;
}

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

/**
 * The tools and the prompt of the suite's `input-required-result-*` scenarios (MCP 2026-07-28,
 * SEP-2322), named and shaped as the scenarios' requirements say: each asks with
 * `mcpInputRequired(...)`, reads the answers in `ctx.inputResponses` and its own
 * `ctx.requestState` (signed by the module), and asks again when an answer is missing.
 */
@Injectable()
export class ConformanceInputRequired {
  @McpTool({ name: 'test_input_required_result_elicitation', description: 'Asks the user for their name (input-required result)' })
  elicitation(@McpContext() ctx: McpToolContext) {
    const answer = accepted(ctx, 'user_name');
    if (typeof answer?.name !== 'string') {
      return mcpInputRequired({ inputRequests: { user_name: askText('What is your name?', 'name') } });
    }
    return text(`Hello, ${answer.name}!`);
  }

  @McpTool({ name: 'test_input_required_result_sampling', description: 'Asks the client to sample an answer (input-required result)' })
  sampling(@McpContext() ctx: McpToolContext) {
    const answer = CreateMessageResultSchema.safeParse(ctx.inputResponses?.capital_question);
    if (!answer.success) {
      return mcpInputRequired({ inputRequests: { capital_question: askSampling('What is the capital of France?', 100) } });
    }
    const content = answer.data.content;
    return text(`LLM response: ${content.type === 'text' ? content.text : `(${content.type})`}`);
  }

  @McpTool({ name: 'test_input_required_result_list_roots', description: "Asks for the client's roots (input-required result)" })
  listRoots(@McpContext() ctx: McpToolContext) {
    const answer = ListRootsResultSchema.safeParse(ctx.inputResponses?.client_roots);
    if (!answer.success) {
      return mcpInputRequired({ inputRequests: { client_roots: askRoots } });
    }
    return text(`Roots: ${answer.data.roots.map((root) => root.uri).join(', ') || '(none)'}`);
  }

  @McpTool({ name: 'test_input_required_result_request_state', description: 'Round-trips a requestState (input-required result)' })
  requestState(@McpContext() ctx: McpToolContext) {
    const state = ctx.requestState as { issued?: boolean } | undefined;
    if (!state?.issued || !accepted(ctx, 'confirm')) {
      return mcpInputRequired({
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: {
              message: 'Please confirm',
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            },
          },
        },
        requestState: { issued: true },
      });
    }
    return text('state-ok: the requestState came back as issued');
  }

  @McpTool({ name: 'test_input_required_result_multiple_inputs', description: 'Asks for several inputs at once (input-required result)' })
  multipleInputs(@McpContext() ctx: McpToolContext) {
    const name = accepted(ctx, 'user_name');
    const greeting = CreateMessageResultSchema.safeParse(ctx.inputResponses?.greeting);
    const roots = ListRootsResultSchema.safeParse(ctx.inputResponses?.client_roots);
    if (!(ctx.requestState as { round?: number } | undefined)?.round || !name || !greeting.success || !roots.success) {
      return mcpInputRequired({
        inputRequests: {
          user_name: askText('What is your name?', 'name'),
          greeting: askSampling('Generate a greeting', 50),
          client_roots: askRoots,
        },
        requestState: { round: 1 },
      });
    }
    return text(`Hello, ${String(name.name)}! ${roots.data.roots.length} root(s).`);
  }

  @McpTool({ name: 'test_input_required_result_multi_round', description: 'Asks in two rounds (input-required result)' })
  multiRound(@McpContext() ctx: McpToolContext) {
    const state = ctx.requestState as { step?: number; name?: string } | undefined;
    const name = accepted(ctx, 'step1');
    if (state?.step === 2) {
      const color = accepted(ctx, 'step2');
      if (typeof color?.color === 'string') {
        return text(`${state.name}'s favorite color is ${color.color}.`);
      }
    }
    if (state?.step === 1 && typeof name?.name === 'string') {
      return mcpInputRequired({
        inputRequests: { step2: askText('Step 2: What is your favorite color?', 'color') },
        requestState: { step: 2, name: name.name },
      });
    }
    return mcpInputRequired({ inputRequests: { step1: askText('Step 1: What is your name?', 'name') }, requestState: { step: 1 } });
  }

  @McpTool({ name: 'test_input_required_result_tampered_state', description: 'Issues a signed requestState (input-required result)' })
  tamperedState(@McpContext() ctx: McpToolContext) {
    // A changed requestState never gets here: the module refuses it with -32602 before the handler runs.
    if ((ctx.requestState as { issued?: boolean } | undefined)?.issued && accepted(ctx, 'confirm')) {
      return text('state-ok');
    }
    return mcpInputRequired({
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
        },
      },
      requestState: { issued: true },
    });
  }

  @McpTool({
    name: 'test_input_required_result_capabilities',
    description: 'Asks only for what the client declared it can answer (input-required result)',
  })
  capabilities(@McpContext() ctx: McpToolContext) {
    if (ctx.inputResponses && Object.keys(ctx.inputResponses).length > 0) {
      return text(`Answered: ${Object.keys(ctx.inputResponses).sort().join(', ')}`);
    }
    const declared = ctx.clientCapabilities ?? {};
    const requests: Record<string, McpInputRequest> = {};
    if (declared.elicitation) requests.user_name = askText('What is your name?', 'name');
    if (declared.sampling) requests.greeting = askSampling('Generate a greeting', 50);
    if (declared.roots) requests.client_roots = askRoots;
    if (Object.keys(requests).length === 0) {
      return text('The client declared no capability to ask with.');
    }
    return mcpInputRequired({ inputRequests: requests });
  }

  @McpPrompt({ name: 'test_input_required_result_prompt', description: 'A prompt that asks the user for its context first' })
  prompt(@McpContext() ctx: McpToolContext): GetPromptResult | ReturnType<typeof mcpInputRequired> {
    const answer = accepted(ctx, 'user_context');
    if (typeof answer?.context !== 'string') {
      return mcpInputRequired({ inputRequests: { user_context: askText('What context should the prompt use?', 'context') } });
    }
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.context}` } }] };
  }
}
