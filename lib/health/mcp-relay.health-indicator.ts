import { Injectable } from '@nestjs/common';
import { HealthIndicatorService, type HealthIndicatorResult } from '@nestjs/terminus';
import { McpHealthService } from './mcp-health.service.js';

/** Options of {@link McpRelayHealthIndicator.isHealthy}. */
export interface McpRelayHealthOptions {
  /**
   * What a disconnected relay reports. `'degraded'` (HTTP 200): calls stay gated by the store
   * and menus are right on the next `tools/list`, only `list_changed` from other processes is
   * late, and the relay reconnects by itself. `'down'` (HTTP 503) for readiness probes that
   * should take such a replica out.
   * @default 'degraded'
   */
  whenDisconnected?: 'degraded' | 'down';
}

/**
 * `@nestjs/terminus` indicator of the transition relay: `up` while it carries transitions
 * (or when none is configured), `degraded` or `down` while its connection is lost.
 *
 * @example
 * this.health.check([() => this.store.isHealthy(), () => this.relay.isHealthy('transitionRelay', { whenDisconnected: 'down' })]);
 */
@Injectable()
export class McpRelayHealthIndicator {
  constructor(
    private readonly indicators: HealthIndicatorService,
    private readonly health: McpHealthService,
  ) {}

  /** The relay's health under `key`: its class name, whether one is configured, and why it is not connected. */
  isHealthy<const Key extends string = 'transitionRelay'>(
    key: Key = 'transitionRelay' as Key,
    { whenDisconnected = 'degraded' }: McpRelayHealthOptions = {},
  ): HealthIndicatorResult<Key> {
    const check = this.indicators.check(key);
    const { configured, connected, relay, reason } = this.health.checkRelay();
    const data = { configured, ...(relay ? { relay } : {}), ...(reason ? { message: reason } : {}) };
    if (connected) {
      return check.up(data);
    }
    return whenDisconnected === 'down' ? check.down(data) : check.degraded(data);
  }
}
