import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { McpDeadlineHealthIndicator, McpRelayHealthIndicator, McpStoreHealthIndicator } from '../lib/terminus.js';
import { HealthController } from './health.controller.js';
import { SampleTelemetryShutdown } from './telemetry.js';

/** What operators read: `GET /health` (terminus, with the module's indicators) and the telemetry SDK's flush at shutdown. */
@Module({
  imports: [TerminusModule.forRoot()],
  controllers: [HealthController],
  providers: [McpStoreHealthIndicator, McpRelayHealthIndicator, McpDeadlineHealthIndicator, SampleTelemetryShutdown],
})
export class SampleObservabilityModule {}
