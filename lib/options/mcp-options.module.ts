import { Module, type DynamicModule } from '@nestjs/common';
import { optionSliceProviders, resolvedOptionsProvider } from './options.providers.js';
import { MCP_RESOLVED_OPTIONS } from './mcp-resolved-options.interface.js';

/**
 * The options of one McpModule: the provider `ConfigurableModuleBuilder` made of what the app
 * passed (a value, or a factory with the app's `imports`), resolved once, and cut into the
 * slices the feature modules inject.
 */
@Module({})
export class McpOptionsModule {
  /** The options module of one `forRoot`/`forRootAsync` definition (its options providers and imports). */
  static register(definition: Pick<DynamicModule, 'imports' | 'providers'>): DynamicModule {
    return {
      module: McpOptionsModule,
      imports: definition.imports ?? [],
      providers: [...(definition.providers ?? []), resolvedOptionsProvider, ...optionSliceProviders],
      exports: [MCP_RESOLVED_OPTIONS, ...optionSliceProviders.map((slice) => slice.provide)],
    };
  }
}
