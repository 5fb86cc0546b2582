import type { EntityManager, QueryRunner } from 'typeorm';
import type { FsmClaimResult, FsmCommit } from '../atomic-fsm-state-store.interface.js';
import type { FsmSnapshot } from '../fsm-state-store.interface.js';
import { storeHandleExists, storeTransactionClosed, storeTransactionMissingInstance } from '../stores.messages.js';
import type { FsmLockRequest, FsmTransaction } from '../transactional-fsm-state-store.interface.js';
import { type FsmStateSql, isDeadlock, notTaken, refuseFsmClaim, storedSnapshot, toSnapshot } from './fsm-state.sql.js';

/**
 * One transaction of the TypeORM store (transactional mode) on a QueryRunner of its own:
 * the handler writes through `manager`, and `commit` writes the state change and commits
 * both together.
 */
export class TypeOrmFsmTransaction implements FsmTransaction {
  private readonly locked = new Set<string>();
  private open = true;

  constructor(
    private readonly runner: QueryRunner,
    private readonly sql: FsmStateSql,
    private readonly history: boolean,
    private readonly onClose: () => void,
  ) {}

  /** The transaction's `EntityManager`. */
  get manager(): EntityManager {
    return this.runner.manager;
  }

  /**
   * Locks the instance row without waiting for another transaction and judges it as a claim
   * (exact states, owner rule); `claimed` carries its snapshot, context included. Inserts it
   * (locked) from `createWith` when it is absent. PostgreSQL/MySQL: one `SELECT … FOR UPDATE SKIP
   * LOCKED` when the row is free; a row held by another transaction costs one more SELECT
   * to report its state as `busy`. MySQL/MariaDB with `createWith`: a plain SELECT comes
   * first, because under REPEATABLE READ a locking read of an absent row takes a gap lock
   * and concurrent inserts into one gap deadlock; a remaining deadlock victim (rolled back
   * by InnoDB) is answered `busy`.
   */
  async lock(request: FsmLockRequest): Promise<FsmClaimResult> {
    this.assertOpen();
    const result = await this.tryLock(request, request.createWith);
    if (result.status === 'claimed') this.locked.add(request.handle);
    return result;
  }

  /**
   * Writes the new state (a new row when `insert` and the instance was not locked here) and
   * the history row, then commits. On an error the transaction stays open: call `rollback`.
   */
  async commit(handle: string, commit: FsmCommit, options: { insert?: boolean } = {}): Promise<void> {
    this.assertOpen();
    const record = this.history ? commit.record : undefined;
    if (options.insert && !this.locked.has(handle)) {
      if (!(await this.sql.insert(this.runner, handle, commit.snapshot, { record }))) {
        throw new Error(storeHandleExists(handle));
      }
    } else if (!(await this.sql.update(this.runner, handle, undefined, commit.snapshot, record))) {
      throw new Error(storeTransactionMissingInstance(handle));
    }
    await this.runner.commitTransaction();
    await this.close();
  }

  /** Rolls back (when still open) and releases the connection. */
  async rollback(): Promise<void> {
    if (!this.open) return;
    try {
      if (this.runner.isTransactionActive) await this.runner.rollbackTransaction();
    } finally {
      await this.close();
    }
  }

  private async tryLock(request: FsmLockRequest, createWith: FsmSnapshot | undefined): Promise<FsmClaimResult> {
    const now = Date.now();
    if (createWith && this.sql.dialect === 'mysql' && !(await this.sql.inspect(this.runner, request.handle))) {
      return this.insertLocked(request, createWith);
    }
    const row = await this.sql.lock(this.runner, request.handle);
    if (row) return refuseFsmClaim(row, request, now) ?? { status: 'claimed', snapshot: toSnapshot(row) };
    const held = await this.sql.inspect(this.runner, request.handle);
    if (held) return notTaken(held, request, now);
    return createWith ? this.insertLocked(request, createWith) : { status: 'unknown' };
  }

  private async insertLocked(request: FsmLockRequest, createWith: FsmSnapshot): Promise<FsmClaimResult> {
    let inserted: boolean;
    try {
      inserted = await this.sql.insert(this.runner, request.handle, createWith);
    } catch (error) {
      if (isDeadlock(error)) return { status: 'busy', state: createWith.state };
      throw error;
    }
    return inserted ? { status: 'claimed', snapshot: storedSnapshot(createWith) } : this.tryLock(request, undefined);
  }

  private assertOpen(): void {
    if (!this.open) throw new Error(storeTransactionClosed());
  }

  private async close(): Promise<void> {
    this.open = false;
    try {
      await this.runner.release();
    } finally {
      this.onClose();
    }
  }
}
