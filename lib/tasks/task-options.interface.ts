import type { McpTaskStore } from '../stores/mcp-task-store.interface.js';

/** Options of MCP tasks (`tasks`): where they live and how long, how many a requester may hold. */
export interface McpTaskOptions {
  /** Where tasks live; any process sharing it answers them. @default a new `InMemoryMcpTaskStore` */
  store?: McpTaskStore;
  /** How long a task is kept after its creation when the client asks for no `ttl`, in milliseconds. @default 86_400_000 (24 h) */
  defaultTtlMs?: number;
  /** The longest a task is kept (a longer `ttl` asked for is cut to it), in milliseconds. @default 604_800_000 (7 days) */
  maxTtlMs?: number;
  /** How often the client is told to poll, in milliseconds. @default 1_000 */
  pollIntervalMs?: number;
  /** How many tasks that have not ended one requester may hold; one more is refused. @default 100 */
  maxActivePerRequester?: number;
  /**
   * How often expired tasks are deleted, and tasks whose process stopped while their call ran
   * are failed, in milliseconds. @default 60_000
   */
  sweepIntervalMs?: number;
  /**
   * How long the process that runs a task's call holds it without renewing (every third of it):
   * a `working` task whose lease ran out lost its process (a crash, a kill) and is failed by
   * the next sweep of any process. @default 30_000
   */
  leaseMs?: number;
}

/** `tasks` with every default filled in. */
export type McpResolvedTaskOptions = Required<McpTaskOptions>;

/** Injection token of the {@link McpResolvedTaskOptions}. */
export const MCP_TASK_OPTIONS = Symbol.for('nestjs-mcp-fsm:task-options');
