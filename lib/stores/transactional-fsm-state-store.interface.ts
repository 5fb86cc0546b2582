import type { AtomicFsmStateStore, WorkflowClaimRequest, WorkflowClaimResult, WorkflowCommit } from './atomic-fsm-state-store.interface.js';

/** A lock request inside a transaction: the claim request (same semantics) without its lease fields. */
export type WorkflowLockRequest = Omit<WorkflowClaimRequest, 'token' | 'leaseMs'>;

/**
 * One open database transaction that a gated handler joins (transactional mode):
 * the handler's writes through `manager` and the state change commit or roll back together.
 */
export interface FsmTransaction {
  /** The transaction's entity manager (a TypeORM `EntityManager` for the TypeORM store). */
  readonly manager: unknown;
  /**
   * Locks the instance row for the rest of the transaction (without waiting: a row that
   * another transaction holds, or that a live lease holds, is `busy`). Judged as a claim:
   * states matched exactly (any state without `allowedStates`), an owned instance is
   * `unknown` to every other caller; `claimed` carries the snapshot, context included.
   */
  lock(request: WorkflowLockRequest): Promise<WorkflowClaimResult>;
  /** Writes the new state (inserts it when `insert`), then commits the transaction. */
  commit(key: string, commit: WorkflowCommit, options?: { insert?: boolean }): Promise<void>;
  /** Rolls the transaction back; safe to call after a failed commit. */
  rollback(): Promise<void>;
}

/** A store that can run the claim as a row lock inside a transaction the handler joins. */
export interface TransactionalFsmStateStore extends AtomicFsmStateStore {
  /** Opens a transaction on a connection of its own. */
  beginTransaction(): Promise<FsmTransaction>;
}

/** Whether `store` supports transactional mode. */
export function isTransactionalFsmStateStore(store: object): store is TransactionalFsmStateStore {
  return typeof (store as Partial<TransactionalFsmStateStore>).beginTransaction === 'function';
}
