import type { FsmClaimRequest, FsmCommit } from '../../stores/atomic-fsm-state-store.interface.js';

/** Exclusive hold on one instance between admission and commit. */
export interface FsmInstanceLock {
  /** State when the lock was taken. */
  readonly state: string;
  /** Owner of the instance, kept on commit. */
  readonly owner?: string;
  /** Transaction manager the handler joins (transactional mode). */
  readonly manager?: unknown;
  /** Stores the new state and lets go; `false` when the lock was lost meanwhile. */
  commit(commit: FsmCommit): Promise<boolean>;
  /** Lets go without changing the state. */
  release(): Promise<void>;
}

/** Result of trying to take a lock. */
export type FsmLockOutcome =
  | { status: 'claimed'; lock: FsmInstanceLock }
  | { status: 'forbidden'; state: string }
  | { status: 'busy'; state: string }
  | { status: 'unknown' };

/** Takes locks on instances of one store. */
export interface FsmLocker {
  acquire(request: FsmClaimRequest): Promise<FsmLockOutcome>;
}
