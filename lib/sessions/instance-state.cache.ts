/** A cached state: the instance's state (`null`: not in the store), and when that was known (epoch ms). */
interface CachedState {
  state: string | null;
  at: number;
}

/** A read of the store in flight: the keys it reads, and those that changed meanwhile (its answer for them is older). */
interface PendingRead {
  keys: ReadonlySet<string>;
  changed: Set<string>;
}

/** What {@link InstanceStateCache.states} found: the states of the keys present in the store, and when the oldest of them was known. */
export interface CachedStates {
  states: Map<string, string>;
  /** Epoch ms: every state in `states` was known at or after this (`Infinity` for no keys). */
  oldest: number;
}

/** Changes the log remembers: a session whose menu was last brought up to date further back reads all its states again. */
const LOG_SIZE = 4096;

/**
 * The last known states of instances, bounded (the least recently used go first) and aged (a
 * state older than `maxAgeMs` is read again), with a log of the instances that changed, so a
 * session finds what changed since it last looked without walking every instance it follows.
 * No I/O: reads go through the function given to {@link states}. A change told while a read of
 * the same instance is in flight wins over that read's (older) answer.
 */
export class InstanceStateCache {
  private readonly entries = new Map<string, CachedState>();
  private readonly log: string[] = [];
  private readonly pending = new Set<PendingRead>();
  /** Changes so far: the position of the next one in the log. */
  private changes = 0;
  /** Positions before this one are forgotten (overwritten in the log, or wiped by a clear). */
  private horizon = 0;

  constructor(
    private readonly maxInstances: number,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many changes were told so far: pass it to {@link changedSince} later. */
  get epoch(): number {
    return this.changes;
  }

  /** How many instances have a cached state. */
  get size(): number {
    return this.entries.size;
  }

  /** The instances that changed since `epoch`, each once; `undefined` when the log no longer reaches back that far. */
  changedSince(epoch: number): string[] | undefined {
    if (epoch < this.horizon) {
      return undefined;
    }
    const keys = new Set<string>();
    for (let position = epoch; position < this.changes; position++) {
      keys.add(this.log[position % LOG_SIZE]);
    }
    return [...keys];
  }

  /** Instance `key` is now in `state` (`null`: it is gone), as this process stored it. */
  stored(key: string, state: string | null): void {
    this.changed(key);
    this.put(key, { state, at: this.now() });
  }

  /** Instance `key` changed, to a state this process must read (another process changed it). */
  invalidate(key: string): void {
    this.changed(key);
    this.entries.delete(key);
  }

  /**
   * A call found instance `key` in `state` (`null`: gone): when that is not the state cached, the
   * cached one is dropped and read again (a change nobody told this process about; the call's
   * read may also be older than a change told since, so its state is not cached itself).
   */
  observed(key: string, state: string | null): void {
    const cached = this.entries.get(key);
    if (cached && cached.state !== state) {
      this.invalidate(key);
    }
  }

  /** Forgets every state (those of `keys` only, when given): changes may have been missed. Every session then reads all its states again. */
  clear(matches?: (key: string) => boolean): void {
    for (const key of [...this.entries.keys()]) {
      if (!matches || matches(key)) this.entries.delete(key);
    }
    for (const read of this.pending) {
      for (const key of read.keys) read.changed.add(key);
    }
    // One step on, so that every epoch given out so far is before the horizon.
    this.changes++;
    this.horizon = this.changes;
  }

  /**
   * The states of `keys` (absent instances left out): those cached and younger than
   * `maxAgeMs`, the others (all of them when `fresh`) read with `read` and cached.
   */
  async states(keys: readonly string[], read: (keys: string[]) => Promise<Map<string, string>>, fresh = false): Promise<CachedStates> {
    const now = this.now();
    const states = new Map<string, string>();
    const missing: string[] = [];
    let oldest = Infinity;
    for (const key of keys) {
      const cached = fresh ? undefined : this.entries.get(key);
      if (!cached || now - cached.at > this.maxAgeMs) {
        missing.push(key);
        continue;
      }
      this.put(key, cached);
      oldest = Math.min(oldest, cached.at);
      if (cached.state !== null) states.set(key, cached.state);
    }
    if (missing.length === 0) {
      return { states, oldest };
    }
    const pending: PendingRead = { keys: new Set(missing), changed: new Set() };
    this.pending.add(pending);
    let found: Map<string, string>;
    try {
      found = await read(missing);
    } finally {
      this.pending.delete(pending);
    }
    oldest = Math.min(oldest, now);
    for (const key of missing) {
      const state = found.get(key) ?? null;
      if (!pending.changed.has(key)) {
        this.put(key, { state, at: now });
      }
      // A change told meanwhile is newer than what was read: it is what the cache has, if anything.
      const newer = pending.changed.has(key) ? this.entries.get(key) : undefined;
      const current = newer ? newer.state : state;
      if (current !== null) states.set(key, current);
    }
    return { states, oldest };
  }

  private changed(key: string): void {
    this.log[this.changes % LOG_SIZE] = key;
    this.changes++;
    this.horizon = Math.max(this.horizon, this.changes - LOG_SIZE);
    for (const read of this.pending) {
      if (read.keys.has(key)) read.changed.add(key);
    }
  }

  /** Caches `entry` as the most recently used, evicting the least recently used beyond `maxInstances`. */
  private put(key: string, entry: CachedState): void {
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxInstances) {
      this.entries.delete(this.entries.keys().next().value!);
    }
  }
}
