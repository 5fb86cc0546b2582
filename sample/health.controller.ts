import { Controller, Get } from '@nestjs/common';
import { HealthCheck, HealthCheckService } from '@nestjs/terminus';
import { McpDeadlineHealthIndicator, McpRelayHealthIndicator, McpStoreHealthIndicator } from '../lib/terminus.js';

/**
 * `GET /health`: 200 while the workflow store answers (the relay, when there is one, is
 * reported too: `degraded` while it reconnects), 503 with terminus's JSON body when the store
 * cannot be reached, or when the deadline scheduler's polls keep failing (due deadlines do not fire).
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly store: McpStoreHealthIndicator,
    private readonly relay: McpRelayHealthIndicator,
    private readonly deadlines: McpDeadlineHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([
      () => this.store.isHealthy('workflowStore'),
      () => this.relay.isHealthy('transitionRelay'),
      () => this.deadlines.isHealthy('deadlines'),
    ]);
  }
}
