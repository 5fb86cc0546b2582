import { Module, type DynamicModule } from '@nestjs/common';
import { McpTelemetry } from './mcp-telemetry.js';
import { MCP_TELEMETRY_OPTIONS, type McpResolvedTelemetryOptions } from './telemetry-options.interface.js';

/**
 * The telemetry of one McpModule: `@opentelemetry/api` imported once when `telemetry.enabled`,
 * else a no-op that imports nothing (decided at runtime, so `forRootAsync` needs no other form).
 */
@Module({})
export class McpTelemetryModule {
  /** The telemetry module of the McpModule whose options module is `options`. */
  static register(options: DynamicModule): DynamicModule {
    return {
      module: McpTelemetryModule,
      imports: [options],
      providers: [
        {
          provide: McpTelemetry,
          useFactory: (telemetry: McpResolvedTelemetryOptions) => McpTelemetry.create(telemetry),
          inject: [MCP_TELEMETRY_OPTIONS],
        },
      ],
      exports: [McpTelemetry],
    };
  }
}
