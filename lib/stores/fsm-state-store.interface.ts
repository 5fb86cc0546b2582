/** What a store keeps for one workflow instance; a store gives all of it back, context and owner included. */
export interface FsmSnapshot {
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
}

/**
 * Where workflow state lives. The smallest store:
 * any object with `load` and `save` works, with the limits docs/extending.md describes
 * (one process; calls on one handle are serialised by an in-process mutex).
 * Stores that can do better also implement {@link AtomicFsmStateStore}.
 */
export interface FsmStateStore {
  /** The snapshot of `handle`, or `undefined` when there is none. */
  load(handle: string): Promise<FsmSnapshot | undefined>;
  /** Stores the snapshot of `handle`, replacing any earlier one. */
  save(handle: string, snapshot: FsmSnapshot): Promise<void>;
}

/** Injection token of the module's {@link FsmStateStore}. */
export const FsmStateStore = Symbol('nestjs-mcp-fsm:FsmStateStore');
