/**
 * A first-in first-out async mutex. The TypeORM better-sqlite3 driver runs every query of a
 * DataSource on one shared connection (and one shared QueryRunner), so the store serialises
 * its reads, writes and transactions per DataSource with this queue: otherwise a second
 * transaction would silently nest as a SAVEPOINT inside the first, and a read would see the
 * uncommitted writes of the transaction that holds the connection.
 */
export class SqliteWriteQueue {
  private busy = false;
  private readonly waiting: (() => void)[] = [];

  /**
   * Waits for the turn; resolves with the function that ends it (calling it twice is
   * harmless). When `signal` aborts first, leaves the line and rejects with its reason.
   */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(start), 1);
        reject(signal!.reason);
      };
      const start = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(this.turnEnder());
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(start);
    });
  }

  /** The turn at once when nobody holds it (the function that ends it), else `undefined`. */
  tryAcquire(): (() => void) | undefined {
    if (this.busy) return undefined;
    this.busy = true;
    return this.turnEnder();
  }

  /** Runs `work` in its turn. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const release = await this.acquire();
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Ends a turn once: hands the queue to the next in line, or frees it. */
  private turnEnder(): () => void {
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.busy = false;
    };
  }
}

const queues = new WeakMap<object, SqliteWriteQueue>();

/** The queue shared by every store on one DataSource. */
export function sqliteWriteQueue(owner: object): SqliteWriteQueue {
  let queue = queues.get(owner);
  if (!queue) queues.set(owner, (queue = new SqliteWriteQueue()));
  return queue;
}
