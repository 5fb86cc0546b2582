import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Request, RequestId, Result, Task } from '@modelcontextprotocol/sdk/types.js';
import type { McpSession } from '../sessions/mcp-session.js';
import type { McpTasks } from '../tasks/mcp-tasks.js';
import { MCP_TASK_TERMINAL_STATUSES } from '../stores/mcp-task-store.interface.js';
import { legacyTask } from '../tasks/task-wire.js';
import * as taskMessages from '../tasks/tasks.messages.js';
import { JSON_RPC_INVALID_PARAMS } from '../results/json-rpc.codes.js';
import { JsonRpcError } from '../results/json-rpc.error.js';

/**
 * The SDK's `TaskStore` of one 2025-era connection, over the module's tasks: the SDK answers
 * `tasks/get`, `tasks/result` (waiting, by polling the store, until the task ends),
 * `tasks/list` and `tasks/cancel` with it (the last two through handlers of the module, so that
 * a store that fails answers STATE_UNAVAILABLE, -32000, as the first two do). It sees the tasks of the connection's requester
 * only, whichever session or process created them: the SDK's `sessionId` arguments are not
 * what a task belongs to. `requester` is read per request (a session's principal is fixed,
 * a stateless connection's comes with its one request).
 */
export class SessionTaskStore implements TaskStore {
  constructor(
    private readonly tasks: McpTasks,
    private readonly session: () => McpSession,
    private readonly requester: () => string | undefined,
  ) {}

  /** @inheritdoc */
  async createTask(taskParams: { ttl?: number | null }, _requestId: RequestId, request: Request): Promise<Task> {
    const requester = this.requester();
    const params = (request.params ?? {}) as { name?: string; arguments?: Record<string, unknown> };
    if (requester === undefined) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, taskMessages.taskNeedsRequester(String(params.name)));
    }
    const record = await this.tasks.create(
      requester,
      this.session(),
      { name: String(params.name), arguments: params.arguments ?? {} },
      taskParams.ttl ?? undefined,
    );
    return legacyTask(record);
  }

  /** @inheritdoc */
  async getTask(taskId: string): Promise<Task | null> {
    const record = await this.tasks.find(taskId, this.requester());
    return record ? legacyTask(record) : null;
  }

  /** @inheritdoc */
  async storeTaskResult(taskId: string, status: 'completed' | 'failed', result: Result): Promise<void> {
    await this.tasks.change(taskId, { status, result: result as Record<string, unknown> });
  }

  /**
   * The result a task ended with: its tool result (a tool error too); a task that failed
   * inside the server answers its JSON-RPC error, a cancelled one -32602.
   */
  async getTaskResult(taskId: string): Promise<Result> {
    const record = await this.tasks.get(taskId, this.requester());
    if (record.result) return record.result as Result;
    if (record.error) throw new JsonRpcError(record.error.code, record.error.message, record.error.data);
    throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, taskMessages.taskCancelledNoResult(taskId));
  }

  /** @inheritdoc */
  async updateTaskStatus(taskId: string, status: Task['status'], statusMessage?: string): Promise<void> {
    if (status === 'cancelled') {
      // The SDK saw the task working; a decision may have ended it since: the cancel says so rather than answer the ended task.
      const ended = await this.tasks.cancel(taskId, this.requester());
      if (ended.status !== 'cancelled') throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, taskMessages.taskEndedFirst(taskId, ended.status));
      return;
    }
    await this.tasks.change(taskId, { status, ...(statusMessage === undefined ? {} : { statusMessage }) });
  }

  /**
   * `tasks/cancel` of the connection's requester: the task as cancelled; -32602 for a task
   * that is not the requester's, or that ended. Registered in place of the SDK's handler, which
   * answers a store that fails as an invalid request.
   */
  async cancelTask(taskId: string): Promise<Task> {
    const requester = this.requester();
    const record = await this.tasks.get(taskId, requester);
    if (MCP_TASK_TERMINAL_STATUSES.includes(record.status)) {
      throw new JsonRpcError(JSON_RPC_INVALID_PARAMS, taskMessages.taskEnded(taskId, record.status));
    }
    return legacyTask(await this.tasks.cancel(taskId, requester));
  }

  /** @inheritdoc */
  async listTasks(cursor?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    const { tasks, nextCursor } = await this.tasks.list(this.requester(), cursor);
    return { tasks: tasks.map(legacyTask), ...(nextCursor === undefined ? {} : { nextCursor }) };
  }
}
