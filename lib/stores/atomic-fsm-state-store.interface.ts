import type { WorkflowSnapshot, FsmStateStore } from './fsm-state-store.interface.js';
import type { WorkflowCallReceipt } from './workflow-call-receipt.interface.js';
import type { WorkflowEventReceipt } from './workflow-event.interface.js';
import type { WorkflowTimerChanges } from './workflow-timer.interface.js';
import type { WorkflowTransitionRecord } from './workflow-transition-record.interface.js';

/** A request to take the lease of one instance before a gated handler runs. */
export interface WorkflowClaimRequest {
  /** Store key of the instance. */
  key: string;
  /**
   * Stored state values the instance may be in, matched exactly (the gate lists every value
   * its binding matches, descendants included, from the engine). `undefined`: any state
   * (the gate judges the state itself after the claim).
   */
  allowedStates?: readonly string[];
  /** Lease token (random); commit and release must present it. */
  token: string;
  /** Lease duration in milliseconds; after it another call may claim the instance. */
  leaseMs: number;
  /**
   * Snapshot to create, already leased, when the instance does not exist yet
   * (session-keyed machines start implicitly). The gate passes it only when its state is
   * allowed. Without it an absent instance is `unknown`.
   */
  createWith?: WorkflowSnapshot;
  /**
   * The caller's principal (auth client id), `undefined` for an anonymous caller. An instance
   * that has an owner is `unknown` to every other caller, anonymous ones included; an
   * instance without an owner (started anonymously) is open to anyone who holds its key.
   */
  owner?: string;
  /**
   * The caller's team (the value of its machine's team claim): an instance whose starter had
   * the same team is open to the caller too (see `isOpenTo`). A store that ignores it lets only
   * owners in, which fails closed.
   */
  team?: string;
  /**
   * `true` when the gate judges who may act itself, after the claim (a machine whose access is
   * a function): the store then claims the instance whoever owns it.
   */
  anyOwner?: boolean;
}

/** Outcome of a claim. */
export type WorkflowClaimResult =
  | {
      status: 'claimed';
      snapshot: WorkflowSnapshot;
      /** `true` when the claim created the instance from `createWith` (the gate then schedules the initial state's timers with the commit). */
      created?: boolean;
    }
  | { status: 'forbidden'; state: string }
  | { status: 'busy'; state: string }
  | { status: 'unknown' };

/** Which instances a retention sweep deletes (see `AtomicFsmStateStore.sweep`). */
export interface WorkflowSweepRequest {
  /** Instances of these machines in one of these (final) state values, last changed before `before` (epoch ms). */
  finished?: { machines: ReadonlyArray<{ machine: string; states: readonly string[] }>; before: number };
  /** Instances of these machines in any state, last changed before `before` (epoch ms). */
  idle?: { machines: readonly string[]; before: number };
  /** The most instances one call deletes. */
  limit: number;
}

/** What a commit stores: the new snapshot, the history row (kept when the store keeps history), the timers it changes, and an outside event's or a keyed call's receipt. */
export interface WorkflowCommit {
  snapshot: WorkflowSnapshot;
  record?: WorkflowTransitionRecord;
  /** Timers scheduled and cancelled with the state (a store that keeps timers writes them in the same write; see `FsmTimerStore`). */
  timers?: WorkflowTimerChanges;
  /**
   * The receipt of the outside event this commit applies (see `FsmEventLog`): written in the
   * same write as the state; when the store already keeps it, the whole commit fails.
   */
  event?: WorkflowEventReceipt;
  /**
   * The receipt of the keyed call this commit applies (see `FsmReceiptLog`): written in
   * the same write as the state; when the store already keeps one for its requester and key, the
   * whole commit fails.
   */
  receipt?: WorkflowCallReceipt;
}

/**
 * The atomic protocol: claim (one conditional write) → handler →
 * commit (conditional on the lease token) or release. The gate uses it whenever
 * a store offers it, so concurrent calls on one handle run the handler once,
 * also across processes that share the store.
 */
export interface AtomicFsmStateStore extends FsmStateStore {
  /**
   * Creates a new instance (with the timers its initial state schedules, on a store that keeps
   * timers, and a keyed call's receipt, on a `FsmReceiptLog`, in the same write); rejects
   * when `key` already exists, or the receipt is kept already.
   */
  create(
    key: string,
    snapshot: WorkflowSnapshot,
    record?: WorkflowTransitionRecord,
    timers?: WorkflowTimerChanges,
    receipt?: WorkflowCallReceipt,
  ): Promise<void>;
  /** Takes the lease when the instance is in an allowed state and no live lease holds it. */
  claim(request: WorkflowClaimRequest): Promise<WorkflowClaimResult>;
  /** Stores the new state and clears the lease; `false` when `token` no longer holds it. */
  commit(key: string, token: string, commit: WorkflowCommit): Promise<boolean>;
  /**
   * Deletes instances that can never be addressed again (the session-keyed instances of a
   * closed session, an ended one); their history stays, their timers (a `FsmTimerStore`'s)
   * go in the same write. Optional: without it they stay until the store expires them.
   */
  delete?(keys: readonly string[]): Promise<void>;
  /**
   * Ends an instance under the lease `token` holds: deletes it with its timers and attempts,
   * and writes `record` (its last history row, when the store keeps history), in one write;
   * `false` when `token` no longer holds the lease (nothing changed). Optional: without it
   * `McpWorkflowService.end` deletes with {@link delete} under its claim and writes no history row.
   */
  end?(key: string, token: string, record?: WorkflowTransitionRecord): Promise<boolean>;
  /**
   * Extends a lease that `token` still holds to `leaseMs` from now (a heartbeat while a
   * handler runs); `false` when the lease was lost. Optional: without it a handler must
   * finish within one lease.
   */
  renew?(key: string, token: string, leaseMs: number): Promise<boolean>;
  /** Clears the lease without changing the state (no-op for a stale token). */
  release(key: string, token: string): Promise<void>;
  /** Snapshots of many keys in one round trip (absent keys are left out). */
  loadMany(keys: readonly string[]): Promise<Map<string, WorkflowSnapshot>>;
  /**
   * Only the states of many keys, in one round trip and without reading or copying
   * their contexts (absent keys are left out): what a `tools/list` menu needs.
   * Optional: without it menus read whole snapshots with `loadMany`.
   */
  loadStates?(keys: readonly string[]): Promise<Map<string, string>>;
  /**
   * Retention: deletes up to `request.limit` instances that match `finished` or `idle` and
   * that no live lease holds, with their history and (in the same write) their timers;
   * answers how many it deleted. Safe to run from several processes at once. Optional:
   * without it instances stay until deleted.
   */
  sweep?(request: WorkflowSweepRequest): Promise<number>;
  /** Transition history of one instance, oldest first (empty when history is off). */
  history(key: string): Promise<WorkflowTransitionRecord[]>;
}

/** Whether `store` implements the atomic protocol. */
export function isAtomicFsmStateStore(store: FsmStateStore): store is AtomicFsmStateStore {
  const candidate = store as Partial<AtomicFsmStateStore>;
  return (
    typeof candidate.claim === 'function' &&
    typeof candidate.commit === 'function' &&
    typeof candidate.release === 'function' &&
    typeof candidate.create === 'function' &&
    typeof candidate.loadMany === 'function'
  );
}
