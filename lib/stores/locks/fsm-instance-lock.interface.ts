import type { WorkflowClaimRequest, WorkflowCommit } from '../atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from '../workflow-transition-record.interface.js';

/** Exclusive hold on one instance between admission and commit. */
export interface FsmInstanceLock {
  /** The instance as it was when the lock was taken (nobody else changes it while it is held). */
  readonly snapshot: WorkflowSnapshot;
  /** Whether taking the lock created the instance (from the request's `createWith`). */
  readonly created?: boolean;
  /** Transaction manager the handler joins (transactional mode). */
  readonly manager?: unknown;
  /** Stores the new snapshot and lets go; `false` when the lock was lost meanwhile. */
  commit(commit: WorkflowCommit): Promise<boolean>;
  /** Lets go without changing the instance. */
  release(): Promise<void>;
  /**
   * Ends (deletes) the instance and lets go, writing `record` with it when the store can (see
   * `AtomicFsmStateStore.end`); `false` when the lock was lost meanwhile. Absent where the store
   * cannot delete an instance.
   */
  end?(record: WorkflowTransitionRecord): Promise<boolean>;
}

/** Result of trying to take a lock. */
export type FsmLockOutcome =
  | { status: 'claimed'; lock: FsmInstanceLock }
  | { status: 'forbidden'; state: string }
  | { status: 'busy'; state: string }
  | { status: 'unknown' };

/** Takes locks on instances of one store. */
export interface FsmLocker {
  acquire(request: WorkflowClaimRequest): Promise<FsmLockOutcome>;
}
