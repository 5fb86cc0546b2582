/** What a health check reports about the module's store and relay: worded once. */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The store did not answer its ping within the check's own time limit. */
export const storePingTimedOut = (store: string, timeoutMs: number): string => `${store} did not answer within ${timeoutMs} ms`;

/** The store's ping failed. */
export const storePingFailed = (store: string, error: unknown): string => `${store} cannot serve calls: ${reasonOf(error)}`;

/** No relay is configured: transitions reach this process's sessions only, which is not a fault. */
export const noRelay = (): string => 'no transition relay configured (this process only)';

/** The relay does not implement `health()`. */
export const relayCannotTell = (relay: string): string => `${relay} does not report its connection`;

/** No machine has `after` and no approval expires: this process polls for no timers, which is not a fault. */
export const noDeadlines = (): string => 'no deadlines (no machine has after, no approval expires): nothing polled';

/** The deadline scheduler's polls keep failing: due timers do not fire. */
export const deadlinePollsFailing = (failedPolls: number, since: string, reason: string | undefined): string =>
  `${failedPolls} polls for due timers failed in a row since ${since}: due deadlines do not fire${reason ? ` (${reason})` : ''}`;
