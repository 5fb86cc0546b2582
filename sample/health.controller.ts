import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { McpRelayHealthIndicator, McpStoreHealthIndicator } from '../lib/terminus.js';

/**
 * `GET /health`: 200 while the workflow store answers (the relay, when there is one, is
 * reported too: `degraded` while it reconnects), 503 with terminus's JSON body when the store
 * cannot be reached.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly store: McpStoreHealthIndicator,
    private readonly relay: McpRelayHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.store.isHealthy('workflowStore'), () => this.relay.isHealthy('transitionRelay')]);
  }
}
