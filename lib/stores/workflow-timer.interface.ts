/** A timer a commit schedules: the instance's `after` transition fires `event` at `dueAt`. */
export interface WorkflowTimerEntry {
  /** Timer id, unique within the instance (the engine's, e.g. `xstate.after.ttl.payment.authorized`). */
  readonly id: string;
  /** The event it sends to the instance. */
  readonly event: string;
  /** When it is due, epoch milliseconds. */
  readonly dueAt: number;
}

/**
 * What one commit changes in an instance's timers, in the same write (the same transaction
 * on a SQL store) as its state: `fired` is deleted first and must still be held by its claim
 * (or the whole commit fails: another process fired it), then `cancel`, then `schedule`
 * (replacing a timer of the same id).
 */
export interface WorkflowTimerChanges {
  /** The machine of the instance (kept on each timer row, for the call it becomes). */
  readonly machine: string;
  readonly schedule: readonly WorkflowTimerEntry[];
  readonly cancel: readonly string[];
  /** The timer whose firing this commit stores, with the token of its claim. */
  readonly fired?: { readonly id: string; readonly token: string };
}

/** A request to claim due timers for one poll of the deadline scheduler. */
export interface WorkflowTimerClaimRequest {
  /** Now, epoch milliseconds: timers due at or before it are claimed. */
  readonly now: number;
  /** The most timers one claim takes. */
  readonly limit: number;
  /** Claim token (random); firing, retrying and the commit of the fired transition present it. */
  readonly token: string;
  /** How long the claim holds: a claimed timer is due again (for any process) this long after `now` unless it is finished first. */
  readonly leaseMs: number;
}

/** A due timer one claim took. */
export interface WorkflowDueTimer {
  /** Store key of the instance. */
  readonly key: string;
  readonly machine: string;
  readonly id: string;
  readonly event: string;
  /** How many times its firing failed before (an effect that threw); 0 the first time. */
  readonly attempts: number;
}

/** A pending timer of one instance, as the console shows it. */
export interface WorkflowPendingTimer {
  readonly id: string;
  readonly event: string;
  /** When it is due (or, while a process fires it, when its claim lapses), epoch milliseconds. */
  readonly dueAt: number;
  /** How many times its firing failed (an effect that threw; it is retried until `maxAttempts`); 0 before any. */
  readonly attempts: number;
}

/**
 * A store that keeps durable timers beside the instances (one row per instance key and timer
 * id, indexed by due time), written by the commits of the atomic protocol (`WorkflowCommit.timers`,
 * `create`'s `timers`) and claimed by the deadline scheduler of every process, each due timer
 * by one claim at a time: a claimed timer's due time moves to the end of its claim, so a
 * process that stopped mid-fire leaves it to be claimed again.
 */
export interface FsmTimerStore {
  /** Claims up to `request.limit` due timers, earliest first, without waiting for timers another process is claiming (one indexed query when none is due). */
  claimDueTimers(request: WorkflowTimerClaimRequest): Promise<WorkflowDueTimer[]>;
  /** Deletes a claimed timer the scheduler will not fire (its instance left the state, or is gone); no-op unless `token` still holds it. */
  dropTimer(key: string, id: string, token: string): Promise<void>;
  /** Lets a claimed timer whose firing failed be due again at `dueAt`, one attempt more; no-op unless `token` still holds it. */
  retryTimer(key: string, id: string, token: string, dueAt: number): Promise<void>;
  /** The pending timers of one instance, earliest first. */
  pendingTimers(key: string): Promise<WorkflowPendingTimer[]>;
  /**
   * The pending timers of many instances (a console page's), earliest first, by key; keys with
   * none are left out. Optional: without it each instance is read with `pendingTimers`.
   */
  pendingTimersOf?(keys: readonly string[]): Promise<Map<string, WorkflowPendingTimer[]>>;
  /** Throws, naming the migration to run, when the timer table is missing (checked at bootstrap when a machine has `after`). */
  assertTimerSchema?(): Promise<void>;
}

/** Whether `store` keeps durable timers. */
export function isWorkflowTimerStore(store: object): store is FsmTimerStore {
  const candidate = store as Partial<FsmTimerStore>;
  return (
    typeof candidate.claimDueTimers === 'function' &&
    typeof candidate.dropTimer === 'function' &&
    typeof candidate.retryTimer === 'function' &&
    typeof candidate.pendingTimers === 'function'
  );
}
