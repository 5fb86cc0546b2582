/** Where an MCP task stands: running, waiting for the client's input, or ended (the last three). */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** The statuses a task never leaves. */
export const MCP_TASK_TERMINAL_STATUSES: readonly McpTaskStatus[] = ['completed', 'failed', 'cancelled'];

/** The statuses of a task that has not ended: the only ones an update moves a task from. */
export const MCP_TASK_ACTIVE_STATUSES: readonly McpTaskStatus[] = ['working', 'input_required'];

/** A JSON-RPC error a task failed with (a protocol-level failure, not a tool error). */
export interface McpTaskError {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * One MCP task (a task-augmented `tools/call`), as every process sharing the store serves it:
 * who asked, what it runs, where it stands and, once ended, what it answers.
 */
export interface McpTaskRecord {
  /** Unguessable id the requester polls with. */
  taskId: string;
  /**
   * Whose task it is (see `taskRequesterOf`): the authenticated principal, or the session of an
   * anonymous 2025-era caller. Nobody else gets, lists or cancels it.
   */
  requester: string;
  /** `Mcp-Session-Id` of the session that created it: where its status notifications go. */
  sessionId?: string;
  /** `serverId` of the McpModule that runs it. */
  serverId: string;
  /** The call it runs: the tool and its checked arguments. */
  request: { name: string; arguments: Record<string, unknown> };
  status: McpTaskStatus;
  /** What the requester is told of where it stands (a waiting approval, a failure). */
  statusMessage?: string;
  /** The tool result it answers once `completed` (a tool error too). */
  result?: Record<string, unknown>;
  /** The protocol-level error it answers once `failed`. */
  error?: McpTaskError;
  /**
   * What a task waiting for the client's input (`input_required`) asks and has been answered so
   * far: kept by the server, never sent as it is.
   */
  input?: Record<string, unknown>;
  /** How long it is kept after its creation, in milliseconds. */
  ttlMs: number;
  /** How often the requester should poll, in milliseconds. */
  pollIntervalMs: number;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms of its last change. */
  updatedAt: number;
  /** Epoch ms after which it is gone (`createdAt + ttlMs`): not found, and swept. */
  expiresAt: number;
  /**
   * Epoch ms until which the process that runs its call holds it (renewed while the call runs);
   * absent while no process runs it (it waits, asks for input, or ended). A `working` task whose
   * lease ran out lost its process: the sweep fails it.
   */
  leaseUntil?: number;
}

/** What an update changes of a task (what it leaves out stays). */
export interface McpTaskChange {
  status: McpTaskStatus;
  /** `null` clears it. */
  statusMessage?: string | null;
  result?: Record<string, unknown>;
  error?: McpTaskError;
  /** `null` clears it. */
  input?: Record<string, unknown> | null;
  /** `null` clears it (no process runs the call any more). */
  leaseUntil?: number | null;
}

/** Where one page of a requester's tasks ends: the next page starts after it. */
export interface McpTaskCursor {
  createdAt: number;
  taskId: string;
}

/**
 * Where MCP tasks live, so that any process sharing the store answers `tasks/get`,
 * `tasks/result`, `tasks/list` and `tasks/cancel`, after a restart too. Pass one as
 * `tasks.store` (for example `TypeOrmMcpTaskStore` from `nestjs-mcp-fsm/typeorm`). The default,
 * `InMemoryMcpTaskStore`, keeps the tasks of one process. Every query is bounded: by the
 * task's id, or by a limit.
 */
export interface McpTaskStore {
  /**
   * Records a new task (its id is new); answers whether it did. With `maxActive`, only while
   * `record.requester` holds fewer than `maxActive` tasks that have not ended nor expired at
   * `record.createdAt`, counted and inserted in one atomic step: however many creations for one
   * requester run at once, on however many processes sharing the store, the requester never
   * ends up with more than `maxActive`. Without it, always (and answers `true`).
   */
  create(record: McpTaskRecord, maxActive?: number): Promise<boolean>;
  /** The task, whoever asked for it, expired or not; `undefined` when the store has none with that id. */
  find(taskId: string): Promise<McpTaskRecord | undefined>;
  /**
   * Applies `change` when the task's status is one of `from` and it has not expired at `now`,
   * in one atomic step (two processes never both move it from `working`); returns the task as
   * changed, or `undefined` when it did not apply.
   */
  update(taskId: string, change: McpTaskChange, from: readonly McpTaskStatus[], now: number): Promise<McpTaskRecord | undefined>;
  /** At most `limit` tasks of `requester` not expired at `now`, oldest first, after `after`. */
  list(requester: string, now: number, limit: number, after?: McpTaskCursor): Promise<McpTaskRecord[]>;
  /** At most `limit` `working` tasks, not expired at `now`, whose lease ran out before `now` (their process stopped). */
  orphans(now: number, limit: number): Promise<McpTaskRecord[]>;
  /** Deletes at most `limit` tasks expired at `now`; returns how many. Safe to run from several processes at once. */
  sweep(now: number, limit: number): Promise<number>;
}

/** Injection token of the module's {@link McpTaskStore}. */
export const McpTaskStore = Symbol.for('nestjs-mcp-fsm:McpTaskStore');
