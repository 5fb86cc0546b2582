/** What a store keeps for one workflow instance (the seed's snapshot, plus context and owner). */
export interface WorkflowSnapshot {
  /**
   * The state value: a dotted path (`'approved'`, `'review.legal'`), or the JSON state value
   * of a parallel state (see the engine).
   */
  state: string;
  /** The machine's XState context (JSON data); absent for machines without context and for 0.1 rows. */
  context?: Record<string, unknown>;
  /** ISO-8601 time of the last change. */
  updatedAt: string;
  /** Principal (auth client id) that started a handle-keyed instance, when there was one. */
  owner?: string;
}

/**
 * Where workflow state lives. This is the seed's interface, kept source-compatible:
 * any object with `load` and `save` works, with the limits the README describes
 * (one process; calls on one handle are serialised by an in-process mutex).
 * Stores that can do better also implement {@link AtomicWorkflowStateStore}.
 */
export interface WorkflowStateStore {
  /** The snapshot stored under `key` (an instance key, `"<machine>:<handle>"` or `"<machine>:session:<id>"`), or `undefined` when there is none. */
  load(key: string): Promise<WorkflowSnapshot | undefined>;
  /** Stores the snapshot under `key`, replacing any earlier one. */
  save(key: string, snapshot: WorkflowSnapshot): Promise<void>;
}

/** Injection token of the module's {@link WorkflowStateStore}. */
export const WorkflowStateStore = Symbol('nestjs-mcp-fsm:WorkflowStateStore');

/** @deprecated Use {@link WorkflowSnapshot}; the old name goes in 0.4. */
export type FsmSnapshot = WorkflowSnapshot;
/** @deprecated Use {@link WorkflowStateStore}; the old name goes in 0.4. */
export const FsmStateStore = WorkflowStateStore;
/** @deprecated Use {@link WorkflowStateStore}; the old name goes in 0.4. */
export type FsmStateStore = WorkflowStateStore;
