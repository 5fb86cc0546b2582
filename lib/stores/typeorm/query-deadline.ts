import type { QueryRunner } from 'typeorm';
import { runnerDataSource } from './query-runner-source.js';

/**
 * The time limit of one store operation or transaction: `signal` aborts with the error that
 * `reason` words when `timeoutMs` have passed, unless `clear` was called first. The timer
 * starts when `signal` is first asked for (an operation that waits for its turn or races its
 * queries); a deadline that is only checked with `expired` (a SQLite transaction, whose
 * queries cannot be interrupted) reads the clock and sets no timer.
 */
export class QueryDeadline {
  private readonly expiresAt: number;
  private controller?: AbortController;
  private timer?: NodeJS.Timeout;
  /** When `clear` stopped the clock (epoch ms). */
  private clearedAt?: number;

  constructor(
    readonly timeoutMs: number,
    private readonly reason: () => string,
  ) {
    this.expiresAt = Date.now() + timeoutMs;
  }

  /** Aborts at the deadline, with the timeout error as its reason (at once when it has passed). */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.expired) {
        this.abort();
      } else if (this.clearedAt === undefined) {
        this.timer = setTimeout(() => this.abort(), this.expiresAt - Date.now());
      }
    }
    return this.controller.signal;
  }

  /** Whether the deadline has passed (before `clear`, when it was called). */
  get expired(): boolean {
    return this.controller?.signal.aborted === true || (this.clearedAt ?? Date.now()) >= this.expiresAt;
  }

  /** Settles as `work` does, or rejects with the timeout error when the deadline passes first. */
  race<T>(work: Promise<T>): Promise<T> {
    const { signal } = this;
    if (signal.aborted) {
      work.catch(() => undefined);
      return Promise.reject(signal.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Stops the clock and the timer (the operation ended). */
  clear(): void {
    this.clearedAt ??= Date.now();
    clearTimeout(this.timer);
  }

  private abort(): void {
    this.controller!.abort(new Error(this.reason()));
  }
}

interface BetterSqlite3Connection {
  inTransaction: boolean;
  exec(sql: string): unknown;
}

/**
 * Makes sure the connection of `runner` is never used again in the state an abandoned or
 * failed operation left it in (a query still running after its deadline, a transaction whose
 * COMMIT or ROLLBACK failed), without waiting for that connection: a partitioned one would
 * never answer. The server rolls back the transaction of a closed connection.
 *
 * TypeORM 1.1 has no public way to close a QueryRunner's connection instead of returning it
 * to the pool, so this is the one place that relies on its drivers' internals:
 * - PostgreSQL: `PostgresQueryRunner` releases its pg client with an error, as it does itself
 *   when the client emits one; pg-pool destroys a client released with an error.
 * - MySQL/MariaDB: the mysql2 pool connection's `destroy()` takes it out of the pool, but only
 *   half-closes its socket and leaves a query in flight waiting for an answer that a
 *   partitioned server never sends; destroying its `stream` with an error fails that query.
 *   The runner's `release()` then only marks the runner released.
 * - better-sqlite3: every query shares one connection and one QueryRunner, which cannot be
 *   closed. Whatever transaction is still open on the connection is rolled back, and the
 *   runner's transaction flags (`isTransactionActive`, the protected `transactionDepth`) are
 *   reset: TypeORM leaves them set when COMMIT or ROLLBACK fails, for example when SQLite has
 *   already rolled back by itself after SQLITE_FULL, and later transactions would then start
 *   as SAVEPOINTs inside a transaction that never commits.
 */
export function abandonConnection(runner: QueryRunner, reason: Error): void {
  switch (runnerDataSource(runner).driver.options.type) {
    case 'better-sqlite3': {
      const database = (runnerDataSource(runner).driver as unknown as { databaseConnection: BetterSqlite3Connection }).databaseConnection;
      if (database.inTransaction) database.exec('ROLLBACK');
      Object.assign(runner, { isTransactionActive: false, transactionDepth: 0 });
      return;
    }
    case 'postgres':
      void runner.connect().then(
        () => (runner as unknown as { releasePostgresConnection(error: Error): Promise<void> }).releasePostgresConnection(reason),
        () => undefined,
      );
      return;
    default:
      void runner.connect().then(
        (connection: { destroy(): void; stream: { destroy(error: Error): void } }) => {
          connection.destroy();
          connection.stream.destroy(reason);
          return runner.release();
        },
        () => undefined,
      );
  }
}

/** Whether the better-sqlite3 connection of `runner` is inside a transaction (another call's, or one left open). */
export function sqliteInTransaction(runner: QueryRunner): boolean {
  return (runnerDataSource(runner).driver as unknown as { databaseConnection: BetterSqlite3Connection }).databaseConnection.inTransaction;
}
