import type { WorkflowWaitingRequest } from './workflow-waiting-request.interface.js';

/** What a store keeps for one workflow instance: a store gives back every field it was given. */
export interface WorkflowSnapshot {
  /**
   * The state value: a dotted path (`'approved'`, `'review.legal'`), or the JSON state value
   * of a parallel state (see the engine).
   */
  state: string;
  /** The machine's XState context (JSON data); absent for machines without context and for rows whose context is NULL. */
  context?: Record<string, unknown>;
  /** ISO-8601 time of the last change. */
  updatedAt: string;
  /** Principal (auth client id) that started a handle-keyed instance, when there was one. */
  owner?: string;
  /** The call waiting for a second person's approval while the instance is in the approval's waiting state; absent otherwise. */
  waiting?: WorkflowWaitingRequest;
  /**
   * The value of the machine's team claim in its starter's token (a machine with
   * `access: { team }`), when it had one: callers of the same team may act on the instance.
   */
  team?: string;
}

/**
 * Where workflow state lives: any object with `load` and `save` that keeps the whole
 * {@link WorkflowSnapshot} (checked by a round trip at startup), with the limits docs/extending.md
 * describes (one process; calls on one instance are serialised by an in-process mutex).
 * Stores that can do better also implement `AtomicFsmStateStore` (`nestjs-mcp-fsm/extend`).
 *
 * @example
 * class MyStore implements FsmStateStore {
 *   async load(key: string) { return rows.get(key); }
 *   async save(key: string, snapshot: WorkflowSnapshot) { rows.set(key, structuredClone(snapshot)); }
 * }
 */
export interface FsmStateStore {
  /** The snapshot stored under `key` (an instance key, `"<machine>:<handle>"` or `"<machine>:session:<id>"`), or `undefined` when there is none. */
  load(key: string): Promise<WorkflowSnapshot | undefined>;
  /** Stores the snapshot under `key`, replacing any earlier one. */
  save(key: string, snapshot: WorkflowSnapshot): Promise<void>;
  /**
   * Resolves when the store can serve calls now, rejects when it cannot, within the store's
   * own time limit: what health checks run (see `McpHealthService`). Optional: without it,
   * health checks `load` a key no instance has.
   */
  ping?(): Promise<void>;
}

/** Injection token of the module's {@link FsmStateStore}. */
export const FsmStateStore = Symbol.for('nestjs-mcp-fsm:FsmStateStore');
