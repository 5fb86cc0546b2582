/** A transition as it travels between processes: which instance is now in which state. */
export interface RelayedTransition {
  machine: string;
  storeKey: string;
  /** The new state; `null` when the instance ended (was deleted). */
  state: string | null;
}

/**
 * Carries transitions between the processes that share a store, so a session on one
 * instance gets `list_changed` when a call on another instance moved a handle it shows.
 * Pass one as `McpModule` option `transitionRelay` (for example `PostgresTransitionRelay`
 * from `nestjs-mcp-fsm/typeorm`). Delivery is best effort: a client that misses a
 * notification still sees the right menu on its next `tools/list`, and calls stay gated.
 */
export interface TransitionRelay {
  /**
   * Starts receiving; `listener` gets the transitions of the other processes only. Call
   * `resync` when transitions may have been lost (the connection came back after an outage):
   * this process then re-reads the states its sessions show and tells each session whose menu
   * changed meanwhile.
   */
  start(listener: (transition: RelayedTransition) => void, resync?: () => void): Promise<void>;
  /** Sends a transition of this process to the others (must not throw). */
  publish(transition: RelayedTransition): void;
  /** Stops receiving and lets go of its connection. */
  stop(): Promise<void>;
}

/** @deprecated Use {@link TransitionRelay}; the old name goes in 0.4. */
export type FsmTransitionRelay = TransitionRelay;
/** @deprecated Use {@link RelayedTransition}; the old name goes in 0.4. */
export type FsmRelayedTransition = RelayedTransition;
