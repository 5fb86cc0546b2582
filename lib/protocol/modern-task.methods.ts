import { Injectable } from '@nestjs/common';
import type { ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import type { McpSession } from '../sessions/mcp-session.js';
import { MCP_TASK_ACTIVE_STATUSES } from '../stores/mcp-task-store.interface.js';
import { McpTasks, taskRequesterOf } from '../tasks/mcp-tasks.js';
import { declaresTasksExtension, modernDetailedTask, pendingInputRequests, TASKS_EXTENSION_REQUIRED } from '../tasks/task-wire.js';
import * as taskMessages from '../tasks/tasks.messages.js';
import { JSON_RPC_INVALID_PARAMS, MCP_MISSING_CLIENT_CAPABILITY_CODE } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { ToolCallHandler } from './tool-call.handler.js';

const taskParams = z.looseObject({ taskId: z.string() });
const updateParams = z.looseObject({ taskId: z.string(), inputResponses: z.record(z.string(), z.unknown()).optional() });

/** What one 2026-07-28 request brings to a tasks method: its caller, its declared capabilities and its extra. */
export interface ModernTaskRequest {
  session: McpSession;
  principal: string | undefined;
  capabilities: ClientCapabilities | undefined;
  extra: McpToolContext['extra'];
  /** The answers the request carries (the SDK lifts `inputResponses` out of the params). */
  inputResponses: Record<string, unknown> | undefined;
}

/** The schemas of the tasks methods' params, for the SDK's custom-method registration. */
export const MODERN_TASK_PARAMS = { get: taskParams, update: updateParams, cancel: taskParams } as const;

/**
 * The methods of the 2026-07-28 tasks extension (SEP-2663), for requests that declare it
 * (others: -32021): `tasks/get` answers the task with its result, error or pending input
 * requests inlined; `tasks/update` takes answers to those requests and, once every one is
 * answered, runs the call on with them; `tasks/cancel` cancels a task that has not ended and
 * acknowledges one that has. A task is its requester's: to anyone else it is -32602, as an
 * unknown one. `tasks/result` and `tasks/list` are gone in this era (-32601: not registered).
 */
@Injectable()
export class ModernTaskMethods {
  constructor(
    private readonly tasks: McpTasks,
    private readonly calls: ToolCallHandler,
  ) {}

  /** `tasks/get`: the DetailedTask. */
  async get(method: string, params: z.infer<typeof taskParams>, request: ModernTaskRequest): Promise<Record<string, unknown>> {
    const record = await this.tasks.get(params.taskId, this.requester(method, request));
    return modernDetailedTask(record);
  }

  /** `tasks/update`: records the answers; the call runs on when none is pending. An empty acknowledgement. */
  async update(method: string, params: z.infer<typeof updateParams>, request: ModernTaskRequest): Promise<Record<string, never>> {
    const record = await this.tasks.get(params.taskId, this.requester(method, request));
    if (record.status !== 'input_required') {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, taskMessages.taskNotWaitingForInput(params.taskId));
    }
    const input = record.input as { inputRequests: Record<string, unknown>; requestState: unknown; answered: Record<string, unknown> };
    const pending = pendingInputRequests(record);
    const answered = {
      ...input.answered,
      ...Object.fromEntries(Object.entries(params.inputResponses ?? request.inputResponses ?? {}).filter(([key]) => key in pending)),
    };
    if (Object.keys(input.inputRequests).some((key) => !(key in answered))) {
      await this.tasks.change(record.taskId, { status: 'input_required', input: { ...input, answered } });
      return {};
    }
    const resumed = await this.tasks.change(record.taskId, { status: 'working', input: null, leaseUntil: this.tasks.leaseFromNow() });
    if (resumed) {
      this.calls.resume(request.session, resumed, request.extra, {
        clientCapabilities: request.capabilities,
        inputResponses: answered,
        requestState: input.requestState ?? undefined,
      });
    }
    return {};
  }

  /** `tasks/cancel`: an empty acknowledgement, also for a task that already ended. */
  async cancel(method: string, params: z.infer<typeof taskParams>, request: ModernTaskRequest): Promise<Record<string, never>> {
    const requester = this.requester(method, request);
    const record = await this.tasks.get(params.taskId, requester);
    if (MCP_TASK_ACTIVE_STATUSES.includes(record.status)) {
      await this.tasks.cancel(record.taskId, requester);
    }
    return {};
  }

  /** The request's requester; -32021 when it did not declare the tasks extension. */
  private requester(method: string, request: ModernTaskRequest): string | undefined {
    if (!declaresTasksExtension(request.capabilities)) {
      throw new JsonRpcError(MCP_MISSING_CLIENT_CAPABILITY_CODE, taskMessages.taskMethodNeedsExtension(method), TASKS_EXTENSION_REQUIRED);
    }
    return taskRequesterOf(request.session, request.principal);
  }
}
