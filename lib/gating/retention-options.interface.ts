/** How long the store keeps workflow instances (`gate.retention`). */
export interface McpRetentionOptions {
  /**
   * An instance in a final state, and its history, is deleted this long after its last transition.
   * @default kept forever
   */
  finishedMs?: number;
  /**
   * An instance of a handle-keyed machine that has not moved for this long is deleted (its
   * handle then gets UNKNOWN_HANDLE, which says handles expire). Start tools say so.
   * @default kept forever
   */
  idleHandleMs?: number;
  /** Time between sweeps. @default 60_000 */
  intervalMs?: number;
  /** Instances deleted per store call; a sweep makes at most 20 calls. @default 500 */
  batchSize?: number;
}
