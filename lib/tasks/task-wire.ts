import type { ClientCapabilities, Task } from '@modelcontextprotocol/sdk/types.js';
import type { McpTaskCursor, McpTaskRecord } from '../stores/mcp-task-store.interface.js';

/** A task as MCP 2025-11-25 shows it (`tasks/get`, `CreateTaskResult.task`, `notifications/tasks/status`). */
export function legacyTask(record: McpTaskRecord): Task {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.updatedAt).toISOString(),
    ttl: record.ttlMs,
    pollInterval: record.pollIntervalMs,
  };
}

/** The `tasks/list` cursor after `record`: opaque to the client. */
export function encodeTaskCursor(record: McpTaskCursor): string {
  return Buffer.from(JSON.stringify([record.createdAt, record.taskId])).toString('base64url');
}

/** The position a `tasks/list` cursor stands for; `undefined` for one this server never gave. */
export function decodeTaskCursor(cursor: string): McpTaskCursor | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') {
      return { createdAt: value[0] as number, taskId: value[1] };
    }
  } catch {
    return undefined;
  }
  return undefined;
}

/** The 2026-07-28 tasks extension (SEP-2663): its id under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The `data` of the -32021 error a request without the tasks extension gets where it needs it. */
export const TASKS_EXTENSION_REQUIRED = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

/** Whether a 2026-07-28 request's capabilities declare the tasks extension. */
export function declaresTasksExtension(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return typeof extensions === 'object' && extensions !== null && TASKS_EXTENSION in extensions;
}

/** A task as the 2026-07-28 tasks extension shows it: flat, durations in whole milliseconds. */
function modernTaskFields(record: McpTaskRecord) {
  return {
    taskId: record.taskId,
    status: record.status,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.updatedAt).toISOString(),
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
  };
}

/** The `CreateTaskResult` of a 2026-07-28 `tools/call`: `resultType: 'task'` and the task, flat. */
export function modernCreatedTask(record: McpTaskRecord): Record<string, unknown> {
  return { resultType: 'task', ...modernTaskFields(record) };
}

/** What a 2026-07-28 task waits for: the input requests it still has no answer to. */
export function pendingInputRequests(record: McpTaskRecord): Record<string, unknown> {
  const input = (record.input ?? {}) as { inputRequests?: Record<string, unknown>; answered?: Record<string, unknown> };
  const answered = input.answered ?? {};
  return Object.fromEntries(Object.entries(input.inputRequests ?? {}).filter(([key]) => !(key in answered)));
}

/** The 2026-07-28 `tasks/get` answer (a DetailedTask): the task, with its result, its error or what it waits for inlined. */
export function modernDetailedTask(record: McpTaskRecord): Record<string, unknown> {
  return {
    ...modernTaskFields(record),
    ...(record.status === 'completed' && record.result ? { result: record.result } : {}),
    ...(record.status === 'failed' && record.error ? { error: record.error } : {}),
    ...(record.status === 'input_required' ? { inputRequests: pendingInputRequests(record) } : {}),
  };
}
