/** A client's allowance: `tokens` sessions left at time `at`, refilling at the per-minute rate. */
interface Bucket {
  tokens: number;
  at: number;
}

const MINUTE_MS = 60_000;
/** Clients tracked at most; beyond, the least recently seen one is forgotten. */
const DEFAULT_MAX_CLIENTS = 10_000;

/**
 * How many sessions each client may open: a token bucket per client of `perMinute` sessions,
 * refilled continuously over a minute. Memory stays bounded: a bucket untouched for a minute
 * is full again and is dropped, and at most `maxClients` are kept (least recently seen first out).
 */
export class McpSessionRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweptAt: number;

  constructor(
    private readonly perMinute: number,
    private readonly maxClients = DEFAULT_MAX_CLIENTS,
    private readonly now: () => number = Date.now,
  ) {
    this.sweptAt = now();
  }

  /** Clients currently tracked. */
  get size(): number {
    return this.buckets.size;
  }

  /** Takes one session from `client`'s allowance: `0` when granted, else the whole seconds until one is. */
  take(client: string): number {
    if (this.perMinute === Infinity) {
      return 0;
    }
    const now = this.now();
    this.sweep(now);
    const rate = this.perMinute / MINUTE_MS;
    const bucket = this.buckets.get(client);
    const tokens = bucket ? Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * rate) : this.perMinute;
    if (tokens < 1) {
      return Math.max(1, Math.ceil((1 - tokens) / rate / 1000));
    }
    // Re-inserted so that the map's order is least recently seen first.
    this.buckets.delete(client);
    this.buckets.set(client, { tokens: tokens - 1, at: now });
    if (this.buckets.size > this.maxClients) {
      this.buckets.delete(this.buckets.keys().next().value!);
    }
    return 0;
  }

  /** Drops the buckets that have refilled (once a minute at most, so a take stays O(1) on average). */
  private sweep(now: number): void {
    if (now - this.sweptAt < MINUTE_MS) {
      return;
    }
    this.sweptAt = now;
    for (const [client, bucket] of this.buckets) {
      if (now - bucket.at >= MINUTE_MS) {
        this.buckets.delete(client);
      }
    }
  }
}
