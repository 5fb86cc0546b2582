/**
 * Menus from memory (module option `stateCache`, docs/deployment.md#menus-from-memory-statecache): the process
 * keeps the states of the instances its sessions follow, kept true by its own transitions and
 * the transition relay's messages, so a list reads only what changed instead of every instance
 * the session follows.
 */
export interface McpStateCacheOptions {
  /**
   * `true`: on. Say so when this process is the only one that changes the store (one process on
   * a SQLite file, an in-memory store no other app shares), or when every process that does has
   * the same `transitionRelay`: a change made elsewhere then shows in this process's lists once
   * the relay delivered it. Off, every list reads the states of all the session's instances
   * from the store, so a change made by anyone shows at once.
   * @default false
   */
  enabled?: boolean;
  /** States kept; the least recently used go first. @default 10_000 */
  maxInstances?: number;
  /**
   * The oldest a kept state may be before a list reads it again: the bound on how long a change
   * nobody told this process about (a lost relay message, a retention sweep, a write to the store
   * outside the module) can stay out of its lists.
   * @default 60_000 (a minute)
   */
  maxAgeMs?: number;
}

/** `stateCache` with every default filled in. */
export interface McpResolvedStateCacheOptions {
  enabled: boolean;
  maxInstances: number;
  maxAgeMs: number;
  /**
   * Whether other processes may serve this process's sessions (a transition relay and a session
   * store of the app's): a list then also checks the session's record for handles it started
   * following elsewhere.
   */
  sharedSessions: boolean;
}

/** Injection token of the {@link McpResolvedStateCacheOptions}. */
export const MCP_STATE_CACHE_OPTIONS = Symbol('nestjs-mcp-fsm:McpResolvedStateCacheOptions');
