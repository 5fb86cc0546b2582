import type { DataSource } from 'typeorm';
import { sqliteTurnTimedOut } from '../stores.messages.js';
import { DEFAULT_STORE_TIMEOUT_MS } from './typeorm-fsm-state-store-options.interface.js';
import { sqliteWriteQueue, type SqliteWriteQueue } from './sqlite-write.queue.js';

/** Options of {@link runInSqliteTurn}. */
export interface SqliteTurnOptions {
  /**
   * How long to wait for the turn before failing (a transactional call holds it until it
   * commits; `work` itself is not bounded).
   * @default 5_000, the stores' own `timeoutMs` default
   */
  timeoutMs?: number;
}

/**
 * Runs your own queries on a better-sqlite3 DataSource in the turn that the workflow stores
 * take on it, so they neither see nor join the open transaction of a transactional call. On
 * better-sqlite3, TypeORM runs every query of a DataSource on one shared connection: a read
 * made while a transactional handler runs sees that call's uncommitted writes, and a write
 * becomes part of its transaction (and is rolled back with it). On PostgreSQL and
 * MySQL/MariaDB, where each query has a pooled connection of its own, `work` runs at once.
 *
 * Never call it from inside a transactional handler (that call holds the turn: use
 * `ctx.manager` there); the wait would end with an error after `timeoutMs`.
 *
 * @example
 * const entries = await runInSqliteTurn(dataSource, () => dataSource.query('SELECT kind, amount FROM ledger WHERE payment_id = ?', [id]));
 */
export async function runInSqliteTurn<T>(dataSource: DataSource, work: () => Promise<T>, options: SqliteTurnOptions = {}): Promise<T> {
  if (dataSource.options.type !== 'better-sqlite3') return work();
  const queue = sqliteWriteQueue(dataSource);
  // A free turn waits for nothing: no deadline, so no timer and no AbortSignal per read.
  const endTurn = queue.tryAcquire() ?? (await waitForTurn(queue, options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS));
  try {
    return await work();
  } finally {
    endTurn();
  }
}

/** The turn once the call holding it ends, or an error saying so after `timeoutMs`. */
function waitForTurn(queue: SqliteWriteQueue, timeoutMs: number): Promise<() => void> {
  return queue.acquire(AbortSignal.timeout(timeoutMs)).catch(() => {
    throw new Error(sqliteTurnTimedOut(timeoutMs));
  });
}
