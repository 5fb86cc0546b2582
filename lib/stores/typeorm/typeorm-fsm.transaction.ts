import type { EntityManager, QueryRunner } from 'typeorm';
import type { WorkflowClaimResult, WorkflowCommit } from '../atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import { storeHandleExists, storeTransactionClosed, storeTransactionExpired, storeTransactionMissingInstance } from '../stores.messages.js';
import type { WorkflowLockRequest, FsmTransaction } from '../transactional-fsm-state-store.interface.js';
import type { BoundedQueries } from './bounded-queries.js';
import { notTaken, refuseFsmClaim, storedSnapshot, toSnapshot } from './fsm-state.rows.js';
import type { FsmStateSql } from './fsm-state.sql.js';
import type { FsmEventSql } from './fsm-event.sql.js';
import type { FsmReceiptSql } from './fsm-receipt.sql.js';
import type { FsmTimerSql } from './fsm-timer.sql.js';
import { isDeadlock } from './mysql-errno.js';
import type { QueryDeadline } from './query-deadline.js';
import type { TransactionLimits } from './transaction-limits.js';

/** What a transaction of the TypeORM store works with besides its QueryRunner. */
interface TypeOrmFsmTransactionOptions {
  sql: FsmStateSql;
  /** The timer table, written in the same transaction as the state. */
  timerSql: FsmTimerSql;
  /** The receipt table of outside events, written in the same transaction as the state. */
  eventSql: FsmEventSql;
  /** The receipt table of keyed calls, written in the same transaction as the state. */
  receiptSql: FsmReceiptSql;
  /** Write history rows. */
  history: boolean;
  limits: TransactionLimits;
  /** The store's time limit, which bounds the transaction's work and closes its connection. */
  queries: BoundedQueries;
  /** Aborts when the transaction has been open for `timeoutMs`. */
  deadline: QueryDeadline;
  /** Called once when the transaction is closed (ends the SQLite turn). */
  onClose: () => void;
}

/**
 * One transaction of the TypeORM store (transactional mode) on a QueryRunner of its own:
 * the handler writes through `manager`, and `commit` writes the state change and commits
 * both together.
 *
 * It must end within `timeoutMs` of its BEGIN. At the deadline on PostgreSQL and MySQL/MariaDB
 * its connection is closed at once (the server rolls back, and the handler's next query
 * through `manager` fails); on SQLite, whose one connection cannot be closed, `commit` rolls
 * back instead. Either way `commit` then fails with an error that says so.
 */
export class TypeOrmFsmTransaction implements FsmTransaction {
  private readonly locked = new Set<string>();
  /** Instances whose row this transaction inserted: no timer of theirs exists to cancel or replace. */
  private readonly created = new Set<string>();
  private readonly sql: FsmStateSql;
  private open = true;
  private expired = false;

  constructor(
    private readonly runner: QueryRunner,
    private readonly options: TypeOrmFsmTransactionOptions,
  ) {
    this.sql = options.sql;
    if (this.sql.dialect !== 'sqlite') {
      options.deadline.signal.addEventListener('abort', () => this.expire(), { once: true });
    }
  }

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
  async lock(request: WorkflowLockRequest): Promise<WorkflowClaimResult> {
    this.assertOpen();
    const result = await this.bounded(this.tryLock(request, request.createWith));
    if (result.status === 'claimed') this.locked.add(request.key);
    if (result.status === 'claimed' && result.created) this.created.add(request.key);
    return result;
  }

  /**
   * Writes the new state (a new row when `insert` and the instance was not locked here), the
   * history row, the timer changes and an outside event's or a keyed call's receipt, then commits, all before the deadline. On an error the transaction may
   * still be open: call `rollback`.
   */
  async commit(key: string, commit: WorkflowCommit, options: { insert?: boolean } = {}): Promise<void> {
    this.assertOpen();
    if (this.options.deadline.expired) throw this.options.deadline.signal.reason;
    const clean = await this.bounded(this.write(key, commit, options));
    await this.close(clean);
  }

  /**
   * Rolls back (when still open) and releases the connection; a connection that could not
   * roll back in time is closed instead (the server then rolls back), so this does not throw.
   */
  async rollback(): Promise<void> {
    if (!this.open) return;
    let clean = false;
    try {
      clean = await this.bounded(this.options.limits.rollback(this.runner));
    } finally {
      await this.close(clean);
    }
  }

  private async write(key: string, commit: WorkflowCommit, options: { insert?: boolean }): Promise<boolean> {
    const record = this.options.history ? commit.record : undefined;
    if (options.insert && !this.locked.has(key)) {
      if (!(await this.sql.insert(this.runner, key, commit.snapshot, { record }))) {
        throw new Error(storeHandleExists(key));
      }
      this.created.add(key);
    } else if (!(await this.sql.update(this.runner, key, undefined, commit.snapshot, record))) {
      throw new Error(storeTransactionMissingInstance(key));
    }
    if (commit.timers) await this.options.timerSql.apply(this.runner, key, commit.timers, this.created.has(key));
    if (commit.event) await this.options.eventSql.record(this.runner, key, commit.event, Date.parse(commit.snapshot.updatedAt));
    if (commit.receipt) await this.options.receiptSql.record(this.runner, commit.receipt);
    return this.options.limits.commit(this.runner);
  }

  private async tryLock(request: WorkflowLockRequest, createWith: WorkflowSnapshot | undefined): Promise<WorkflowClaimResult> {
    const now = Date.now();
    if (createWith && this.sql.dialect === 'mysql' && !(await this.sql.inspect(this.runner, request.key))) {
      return this.insertLocked(request, createWith);
    }
    const row = await this.sql.lock(this.runner, request.key);
    if (row) return refuseFsmClaim(row, request, now) ?? { status: 'claimed', snapshot: toSnapshot(row) };
    const held = await this.sql.inspect(this.runner, request.key);
    if (held) return notTaken(held, request, now);
    return createWith ? this.insertLocked(request, createWith) : { status: 'unknown' };
  }

  private async insertLocked(request: WorkflowLockRequest, createWith: WorkflowSnapshot): Promise<WorkflowClaimResult> {
    let inserted: boolean;
    try {
      inserted = await this.sql.insert(this.runner, request.key, createWith);
    } catch (error) {
      if (isDeadlock(error)) return { status: 'busy', state: createWith.state };
      throw error;
    }
    return inserted ? { status: 'claimed', snapshot: storedSnapshot(createWith), created: true } : this.tryLock(request, undefined);
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    return this.options.queries.bounded(this.options.deadline, work);
  }

  private assertOpen(): void {
    if (this.expired) throw new Error(storeTransactionExpired(this.options.deadline.timeoutMs));
    if (!this.open) throw new Error(storeTransactionClosed());
  }

  /** The deadline passed with the transaction open (PostgreSQL, MySQL/MariaDB): close its connection now. */
  private expire(): void {
    if (!this.open) return;
    this.expired = true;
    void this.close(false);
  }

  /**
   * Ends the transaction: its connection goes back to the pool when `clean`, otherwise it is
   * abandoned (a query in flight fails with the deadline's error once it has passed).
   */
  private async close(clean: boolean): Promise<void> {
    if (!this.open) return;
    this.open = false;
    this.options.deadline.clear();
    try {
      if (clean) await this.runner.release();
      else this.options.queries.abandon(this.runner, this.options.deadline);
    } finally {
      this.options.onClose();
    }
  }
}
