import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { McpHealthService } from './mcp-health.service.js';

/** Options of {@link McpDeadlineHealthIndicator.isHealthy}. */
export interface McpDeadlineHealthOptions {
  /** Polls failed in a row after which the scheduler is reported down (HTTP 503 from `HealthCheckService`). @default 5 */
  downAfterFailures?: number;
}

/**
 * `@nestjs/terminus` indicator of the deadline scheduler (durable timers: `after`, approval
 * expiry): `up` while its polls succeed (or when nothing has deadlines), `down` once they keep
 * failing, with when the last one succeeded, since when they fail, and how many timers were
 * given up after `maxAttempts` failed firings.
 *
 * @example
 * this.health.check([() => this.store.isHealthy(), () => this.deadlines.isHealthy('deadlines')]);
 */
@Injectable()
export class McpDeadlineHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly health: McpHealthService,
  ) {}

  /** The scheduler's health under `key`, at once (no round trip: it reports how the polls went). */
  isHealthy<const Key extends string = 'deadlines'>(
    key: Key = 'deadlines' as Key,
    options: McpDeadlineHealthOptions = {},
  ): HealthIndicatorResult<Key> {
    const check = this.indicators.check(key);
    const { up, reason, ...data } = this.health.checkDeadlines(options);
    const details = { ...data, ...(reason === undefined ? {} : { message: reason }) };
    return up ? check.up(details) : check.down(details);
  }
}
