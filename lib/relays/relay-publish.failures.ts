import type { Logger } from '@nestjs/common';
import { checkNumericOption, timerMs } from '../checks/numeric-option.check.js';
import { relayPublishFailed, relayPublishFailedAgain } from '../stores/stores.messages.js';

/** Default of a relay's `warnIntervalMs`: failed publishes are logged at most once per this interval. */
export const DEFAULT_RELAY_WARN_INTERVAL_MS = 10_000;

/**
 * The publishes of a transition relay in flight, and the failed ones logged at most once per interval: while its
 * connection is down, every transition fails, and a line each would flood the log. The first
 * failure is logged at once; the next ones within `intervalMs` are counted and logged as one
 * line with their count when the interval ends (one line per interval while they go on).
 */
export class RelayPublishFailures {
  private readonly inFlight = new Set<Promise<void>>();
  private window?: NodeJS.Timeout;
  private count = 0;
  private last?: unknown;

  /** Throws, naming `component`, when `intervalMs` (its `warnIntervalMs`) is out of range (`checkNumericOption`). */
  constructor(
    component: string,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {
    checkNumericOption(component, 'warnIntervalMs', intervalMs, timerMs());
  }

  /** Follows one publish in the background: a failure is recorded, never thrown. */
  track(publish: Promise<unknown>): void {
    const done: Promise<void> = publish
      .then(
        () => undefined,
        (error: unknown) => this.add(error),
      )
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  /** Resolves when the publishes in flight now have settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /** Records one failed publish. */
  add(error: unknown): void {
    if (this.window) {
      this.count += 1;
      this.last = error;
      return;
    }
    this.logger.warn(relayPublishFailed(error));
    this.open();
  }

  /** Logs what was counted and stops the interval (the relay stopped). */
  stop(): void {
    clearTimeout(this.window);
    this.window = undefined;
    this.flush();
  }

  private open(): void {
    this.window = setTimeout(() => {
      this.window = undefined;
      if (this.flush()) this.open();
    }, this.intervalMs).unref();
  }

  /** Logs the failures counted since the last line; whether there were any. */
  private flush(): boolean {
    if (this.count === 0) {
      return false;
    }
    this.logger.warn(relayPublishFailedAgain(this.count, this.intervalMs, this.last));
    this.count = 0;
    this.last = undefined;
    return true;
  }
}
