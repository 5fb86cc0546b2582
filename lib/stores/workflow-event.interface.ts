/**
 * The record a commit of an outside event (`McpWorkflowService.send` with an idempotency key)
 * writes with the state: the event is applied to the instance once per key.
 */
export interface WorkflowEventReceipt {
  /** The sender's idempotency key (a webhook's event id), unique within the instance. */
  readonly idempotencyKey: string;
  /** The machine of the instance. */
  readonly machine: string;
  /** The event it sent. */
  readonly event: string;
  /** Who sent it (`psp`), as its history row names it. */
  readonly actor: string;
}

/**
 * A store that keeps the receipts of outside events (one row per instance key and idempotency
 * key, unique), each written by the commit that applies its event, in the same write (the same
 * transaction on a SQL store): a commit whose receipt is already kept fails whole and stores
 * nothing, so an event is applied once per key across processes and restarts.
 */
export interface FsmEventLog {
  /** Whether an event with `idempotencyKey` was applied to the instance `key`. */
  hasEvent(key: string, idempotencyKey: string): Promise<boolean>;
  /** Throws, naming the migration to run, when the receipt table is missing (checked by the first send with an idempotency key). */
  assertEventSchema?(): Promise<void>;
}

/** Whether `store` keeps the receipts of outside events. */
export function isWorkflowEventLog(store: object): store is FsmEventLog {
  return typeof (store as Partial<FsmEventLog>).hasEvent === 'function';
}
