import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { McpModule } from '../../lib/index.js';
import { ConformanceDiagnostics } from './conformance.diagnostics.js';
import { ConformanceInputRequired } from './conformance.input-required.js';
import { ConformancePrompts, ConformanceResources } from './conformance.primitives.js';
import { ConformanceTasks } from './conformance.tasks.js';
import { ConformanceTools } from './conformance.tools.js';

/** What the fixture serves: one provider per MCP primitive the suite exercises. */
export const CONFORMANCE_PROVIDERS: Provider[] = [
  ConformanceTools,
  ConformanceDiagnostics,
  ConformanceResources,
  ConformancePrompts,
  ConformanceInputRequired,
  ConformanceTasks,
];

/** Options of the conformance fixture app. */
export interface ConformanceAppOptions {
  /** Stateless Streamable HTTP instead of sessions. @default false */
  stateless?: boolean;
}

/**
 * The app the official conformance suite runs against: `McpModule` with the fixture's
 * providers, on Streamable HTTP at `/mcp`.
 */
export function conformanceModule({ stateless = false }: ConformanceAppOptions = {}): DynamicModule {
  @Module({})
  class ConformanceAppModule {}
  return {
    module: ConformanceAppModule,
    imports: [
      McpModule.forRoot({
        name: 'nestjs-mcp-fsm-conformance',
        version: '1.0.0',
        transports: { http: { path: '/mcp', stateless } },
      }),
    ],
    providers: CONFORMANCE_PROVIDERS,
  };
}
