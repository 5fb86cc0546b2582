import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { McpModule } from '../../lib/index.js';
import { ConformanceTools } from './conformance.tools.js';

/**
 * What the fixture serves: one provider per MCP primitive the suite exercises. A provider
 * of resources or prompts for the `resources-*` and `prompts-*` scenarios is one more file
 * next to `conformance.tools.ts`, added here.
 */
export const CONFORMANCE_PROVIDERS: Provider[] = [ConformanceTools];

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
