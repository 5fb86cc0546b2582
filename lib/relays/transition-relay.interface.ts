/** A transition as it travels between processes: which instance is now in which state. */
export interface RelayedTransition {
  machine: string;
  storeKey: string;
  /** The new state; `null` when the instance ended (was deleted). */
  state: string | null;
}

/** Whether a relay carries transitions now, as health checks report it. */
export interface TransitionRelayHealth {
  /** `true` while the relay can send and receive (its connection is up, its last poll worked). */
  connected: boolean;
  /** Why it cannot, when it cannot (the driver's message, or that it is not started). */
  reason?: string;
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
  /** Whether it carries transitions now (synchronous: what it knows of its connection). Optional: without it, health checks cannot tell. */
  health?(): TransitionRelayHealth;
}
