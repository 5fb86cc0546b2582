import type { McpTaskChange, McpTaskCursor, McpTaskRecord, McpTaskStatus, McpTaskStore } from './mcp-task-store.interface.js';

/**
 * The default task store: the tasks of this process, in its memory. A restart loses them and
 * replicas do not see each other's (use `TypeOrmMcpTaskStore` for that). Records are copied in
 * and out, as a database store would, so no caller shares them.
 */
export class InMemoryMcpTaskStore implements McpTaskStore {
  private readonly tasks = new Map<string, McpTaskRecord>();

  /** @inheritdoc */
  async create(record: McpTaskRecord, maxActive?: number): Promise<boolean> {
    if (maxActive !== undefined && this.countActive(record.requester, record.createdAt) >= maxActive) return false;
    this.tasks.set(record.taskId, structuredClone(record));
    return true;
  }

  /** @inheritdoc */
  async find(taskId: string): Promise<McpTaskRecord | undefined> {
    const record = this.tasks.get(taskId);
    return record && structuredClone(record);
  }

  /** @inheritdoc */
  async update(taskId: string, change: McpTaskChange, from: readonly McpTaskStatus[], now: number): Promise<McpTaskRecord | undefined> {
    const record = this.tasks.get(taskId);
    if (!record || !from.includes(record.status) || record.expiresAt <= now) {
      return undefined;
    }
    const { input, statusMessage, leaseUntil, ...rest } = structuredClone(change);
    Object.assign(record, rest, { updatedAt: now });
    if (leaseUntil === null) delete record.leaseUntil;
    else if (leaseUntil !== undefined) record.leaseUntil = leaseUntil;
    if (statusMessage === null) delete record.statusMessage;
    else if (statusMessage !== undefined) record.statusMessage = statusMessage;
    if (input === null) delete record.input;
    else if (input !== undefined) record.input = input;
    return structuredClone(record);
  }

  /** @inheritdoc */
  async list(requester: string, now: number, limit: number, after?: McpTaskCursor): Promise<McpTaskRecord[]> {
    return [...this.tasks.values()]
      .filter((task) => task.requester === requester && task.expiresAt > now && (!after || compare(task, after) > 0))
      .sort(compare)
      .slice(0, Math.max(0, limit))
      .map((task) => structuredClone(task));
  }

  /** How many tasks of `requester` have not ended nor expired at `now`. */
  private countActive(requester: string, now: number): number {
    let count = 0;
    for (const task of this.tasks.values()) {
      if (task.requester === requester && task.expiresAt > now && (task.status === 'working' || task.status === 'input_required')) count++;
    }
    return count;
  }

  /** @inheritdoc */
  async orphans(now: number, limit: number): Promise<McpTaskRecord[]> {
    return [...this.tasks.values()]
      .filter((task) => task.status === 'working' && task.leaseUntil !== undefined && task.leaseUntil < now && task.expiresAt > now)
      .slice(0, Math.max(0, limit))
      .map((task) => structuredClone(task));
  }

  /** @inheritdoc */
  async sweep(now: number, limit: number): Promise<number> {
    let swept = 0;
    for (const [taskId, task] of this.tasks) {
      if (swept >= limit) break;
      if (task.expiresAt <= now) {
        this.tasks.delete(taskId);
        swept++;
      }
    }
    return swept;
  }
}

/** Oldest first; ties by id. */
function compare(a: McpTaskCursor, b: McpTaskCursor): number {
  return a.createdAt - b.createdAt || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0);
}
