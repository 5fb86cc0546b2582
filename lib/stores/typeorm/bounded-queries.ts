import type { DataSource, QueryRunner } from 'typeorm';
import { checkNumericOption, timerMs } from '../../checks/numeric-option.check.js';
import { storeConnectionAbandoned, storeNeedsDataSource, storeTimedOut } from '../stores.messages.js';
import { abandonConnection, QueryDeadline } from './query-deadline.js';
import { type SqliteWriteQueue, sqliteWriteQueue } from './sqlite-write.queue.js';
import type { TransactionLimits } from './transaction-limits.js';
import { DEFAULT_STORE_TIMEOUT_MS } from './typeorm-fsm-state-store-options.interface.js';
import { assertFsmTableName, type FsmSqlDialect, fsmSqlDialect } from './typeorm-sql.js';

/** How {@link BoundedQueries.run} runs one operation. */
interface BoundedRunOptions {
  /** Runs the work in a transaction that begins and ends with these limits. */
  transaction?: TransactionLimits;
  /**
   * On better-sqlite3, runs the work at once on the shared connection instead of in its turn
   * (a read that may run inside another component's open transaction). Its queries run
   * synchronously, so there is nothing to wait for nor to bound.
   */
  outsideTurn?: boolean;
}

/**
 * The time limit of a TypeORM store or relay (`component`, which its errors name): runs each
 * operation on a QueryRunner of its own within `timeoutMs`, waiting for a connection included,
 * and closes a connection that timed out, or whose transaction did not end cleanly, instead of
 * returning it to the pool (see `abandonConnection`). On better-sqlite3, whose DataSource
 * runs every query on one shared connection, operations take turns in the queue that every
 * store and relay on the DataSource shares, and `timeoutMs` bounds the wait for the turn
 * (queries run synchronously and cannot be interrupted).
 */
export class BoundedQueries {
  /** The dialect of the DataSource. */
  readonly dialect: FsmSqlDialect;
  /** The limit of one operation, in milliseconds (the `timeoutMs` option, checked, or its default). */
  readonly timeoutMs: number;
  private readonly sqliteQueue?: SqliteWriteQueue;

  /** Throws, naming `component`, for a DataSource type the stores do not support or a `timeoutMs` out of range (`checkNumericOption`). */
  constructor(
    private readonly dataSource: DataSource,
    private readonly component: string,
    timeoutMs: number | undefined,
  ) {
    if (typeof dataSource !== 'object' || dataSource === null || typeof dataSource.options !== 'object') {
      throw new Error(storeNeedsDataSource(component, dataSource));
    }
    this.dialect = fsmSqlDialect(dataSource.options.type, component);
    this.timeoutMs = checkNumericOption(component, 'timeoutMs', timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS, timerMs());
    if (this.dialect === 'sqlite') this.sqliteQueue = sqliteWriteQueue(dataSource);
  }

  /**
   * The name under which the component queries one of its tables, checked with
   * `assertFsmTableName`: on PostgreSQL an unqualified name is looked up in the DataSource's
   * `schema`, where the shipped migrations create it.
   */
  table(name: string): string {
    const schema = this.dialect === 'postgres' ? (this.dataSource.options as { schema?: string }).schema : undefined;
    return assertFsmTableName(schema && !name.includes('.') ? `${schema}.${name}` : name, this.component);
  }

  /** A deadline of `timeoutMs` whose error says that `operation` did not finish in time. */
  deadline(operation: string): QueryDeadline {
    return new QueryDeadline(this.timeoutMs, () => storeTimedOut(this.component, operation, this.timeoutMs));
  }

  /** The turn at once on better-sqlite3 when nobody holds it (the function that ends it); `undefined` when it is held, or on another database. */
  freeTurn(): (() => void) | undefined {
    return this.sqliteQueue?.tryAcquire();
  }

  /** Waits for the turn on better-sqlite3 (at once elsewhere) until `deadline`; resolves with the function that ends it. */
  turn(deadline: QueryDeadline): Promise<() => void> {
    return this.sqliteQueue ? this.sqliteQueue.acquire(deadline.signal) : Promise.resolve(() => {});
  }

  /** `work` before the deadline; better-sqlite3 runs queries synchronously, so there is nothing to race. */
  bounded<T>(deadline: QueryDeadline, work: Promise<T>): Promise<T> {
    return this.sqliteQueue ? work : deadline.race(work);
  }

  /** Closes the connection of `runner` instead of returning it to the pool, failing its query in flight with the deadline's error once it has passed. */
  abandon(runner: QueryRunner, deadline: QueryDeadline | undefined): void {
    abandonConnection(runner, deadline?.expired ? deadline.signal.reason : new Error(storeConnectionAbandoned(this.component)));
  }

  /**
   * Runs `operation` on a QueryRunner of its own (on better-sqlite3: in its turn), within
   * `timeoutMs`. A free turn on better-sqlite3 needs no deadline: its queries run synchronously.
   */
  async run<T>(operation: string, work: (runner: QueryRunner) => Promise<T>, options: BoundedRunOptions = {}): Promise<T> {
    if (this.sqliteQueue && options.outsideTurn) return this.released(work);
    const freeTurn = this.freeTurn();
    const deadline = freeTurn ? undefined : this.deadline(operation);
    let endTurn = freeTurn ?? (() => {});
    try {
      if (deadline) endTurn = await this.turn(deadline);
      const runner = this.dataSource.createQueryRunner();
      const connection = { clean: true };
      try {
        const { transaction } = options;
        const done = transaction ? this.transactionally(runner, work, transaction, connection) : work(runner);
        return await (deadline ? this.bounded(deadline, done) : done);
      } catch (error) {
        if (deadline?.expired) connection.clean = false;
        throw error;
      } finally {
        if (connection.clean) await runner.release();
        else this.abandon(runner, deadline);
      }
    } finally {
      deadline?.clear();
      endTurn();
    }
  }

  private async released<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    try {
      return await work(runner);
    } finally {
      await runner.release();
    }
  }

  private async transactionally<T>(
    runner: QueryRunner,
    work: (runner: QueryRunner) => Promise<T>,
    limits: TransactionLimits,
    connection: { clean: boolean },
  ): Promise<T> {
    try {
      await limits.begin(runner);
    } catch (error) {
      connection.clean = false;
      throw error;
    }
    try {
      const result = await work(runner);
      connection.clean = await limits.commit(runner);
      return result;
    } catch (error) {
      // The original error says what went wrong; a failed rollback only keeps the connection out of the pool.
      connection.clean = await limits.rollback(runner);
      throw error;
    }
  }
}
