import { Injectable } from '@nestjs/common';
import { ElicitResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { McpArgs, McpContext, McpTool, mcpInputRequired, type McpInputRequest, type McpToolContext } from '../../lib/index.js';
import { JSON_RPC_INTERNAL_ERROR } from '../../lib/results/json-rpc.codes.js';
import { JsonRpcError } from '../../lib/results/json-rpc.error.js';

const text = (value: string): CallToolResult => ({ content: [{ type: 'text', text: value }] });

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/** An elicitation of one string field. */
const ask = (message: string, field: string): McpInputRequest => ({
  method: 'elicitation/create',
  params: { message, requestedSchema: { type: 'object', properties: { [field]: { type: 'string' } }, required: [field] } },
});

/** The accepted content of the elicitation answered under `key`. */
const answerOf = (ctx: McpToolContext, key: string): Record<string, unknown> | undefined => {
  const parsed = ElicitResultSchema.safeParse(ctx.inputResponses?.[key]);
  return parsed.success && parsed.data.action === 'accept' ? (parsed.data.content ?? {}) : undefined;
};

/**
 * The tools of the suite's `tasks-*` scenarios (the 2026-07-28 tasks extension, SEP-2663),
 * named and shaped as the scenarios' requirements say: `greet` answers in-band, the others run
 * as tasks (`@McpTool({ task })`), ask for input through the task (`confirm_delete`,
 * `multi_input`) or before it (`test_tool_with_task`, `taskAfterInput`).
 */
@Injectable()
export class ConformanceTasks {
  @McpTool({ name: 'greet', description: 'Greets someone', inputSchema: z.object({ name: z.string().default('World') }) })
  greet(@McpArgs('name') name: string) {
    return text(`Hello, ${name}!`);
  }

  @McpTool({
    name: 'slow_compute',
    description: 'Sleeps some seconds, then answers',
    inputSchema: z.object({ seconds: z.number().min(0).max(3_600).default(1), label: z.string().default('') }),
    task: 'optional',
  })
  async slowCompute(@McpArgs('seconds') seconds: number, @McpArgs('label') label: string, @McpContext() ctx: McpToolContext) {
    await sleep(seconds * 1_000, ctx.extra.signal);
    return text(`Computed ${label} in ${seconds}s`);
  }

  @McpTool({ name: 'failing_job', description: 'Runs for a second, then reports a tool error', task: 'required' })
  async failingJob(@McpContext() ctx: McpToolContext): Promise<CallToolResult> {
    await sleep(1_000, ctx.extra.signal);
    return { content: [{ type: 'text', text: 'The job failed' }], isError: true };
  }

  @McpTool({ name: 'protocol_error_job', description: 'Fails with a protocol error', task: 'optional' })
  protocolErrorJob(): never {
    throw new JsonRpcError(JSON_RPC_INTERNAL_ERROR, 'The job crashed');
  }

  @McpTool({
    name: 'confirm_delete',
    description: 'Asks before deleting a file',
    inputSchema: z.object({ filename: z.string().default('file.txt') }),
    task: 'optional',
  })
  confirmDelete(@McpArgs('filename') filename: string, @McpContext() ctx: McpToolContext) {
    if (!answerOf(ctx, 'confirm')) {
      return mcpInputRequired({ inputRequests: { confirm: ask(`Delete ${filename}?`, 'confirm') } });
    }
    return text(`Deleted ${filename}`);
  }

  @McpTool({ name: 'multi_input', description: 'Asks two questions at once', task: 'optional' })
  multiInput(@McpContext() ctx: McpToolContext) {
    const first = answerOf(ctx, 'first');
    const second = answerOf(ctx, 'second');
    if (!first || !second) {
      return mcpInputRequired({ inputRequests: { first: ask('First?', 'value'), second: ask('Second?', 'value') } });
    }
    return text(`Got ${JSON.stringify(first)} and ${JSON.stringify(second)}`);
  }

  @McpTool({ name: 'test_tool_with_task', description: 'Asks for a name, then greets as a task', task: 'required', taskAfterInput: true })
  withTask(@McpContext() ctx: McpToolContext) {
    const answer = answerOf(ctx, 'user_name');
    if (typeof answer?.name !== 'string') {
      return mcpInputRequired({ inputRequests: { user_name: ask('What is your name?', 'name') } });
    }
    return text(`Hello, ${answer.name}!`);
  }
}
