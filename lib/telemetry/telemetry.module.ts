import { Module, type DynamicModule } from '@nestjs/common';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../options/mcp-resolved-options.interface.js';
import { McpTelemetry } from './mcp-telemetry.js';

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
          useFactory: (resolved: McpResolvedOptions) => McpTelemetry.create(resolved.telemetry),
          inject: [MCP_RESOLVED_OPTIONS],
        },
      ],
      exports: [McpTelemetry],
    };
  }
}
