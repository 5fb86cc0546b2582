/** What a store keeps for one workflow instance (the seed's snapshot, plus context and owner). */
export interface FsmSnapshot {
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
