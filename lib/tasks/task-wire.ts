import type { Task } from '@modelcontextprotocol/sdk/types.js';
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
