import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { McpHealthService } from './mcp-health.service.js';

/** Options of {@link McpStoreHealthIndicator.isHealthy}. */
export interface McpStoreHealthOptions {
  /** How long to wait for the store's ping before reporting it down. @default 5000 */
  timeoutMs?: number;
}

/**
 * `@nestjs/terminus` indicator of the workflow state store: `up` when a bounded round trip
 * (`ping`) answers, `down` (HTTP 503 from `HealthCheckService`) when it fails or times out.
 *
 * @example
 * \@Get('health')
 * \@HealthCheck()
 * check() {
 *   return this.health.check([() => this.store.isHealthy('workflowStore'), () => this.relay.isHealthy('transitionRelay')]);
 * }
 */
@Injectable()
export class McpStoreHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly health: McpHealthService,
  ) {}

  /** The store's health under `key`, with the store's class name and the ping's time (and why, when down). */
  async isHealthy<const Key extends string = 'workflowStore'>(
    key: Key = 'workflowStore' as Key,
    options: McpStoreHealthOptions = {},
  ): Promise<HealthIndicatorResult<Key>> {
    const check = this.indicators.check(key);
    const { up, store, responseTimeMs, reason } = await this.health.checkStore(options);
    return up ? check.up({ store, responseTimeMs }) : check.down({ store, responseTimeMs, message: reason });
  }
}
