import { Module, type DynamicModule } from '@nestjs/common';
import { McpConsoleModule } from './console/console.module.js';
import { McpDeadlinesModule } from './deadlines/deadlines.module.js';
import { McpRetentionModule } from './gating/retention.module.js';
import { McpHealthModule } from './health/health.module.js';
import { McpCoreModule } from './mcp-core.module.js';
import { publicServiceProviders, MCP_PUBLIC_SERVICES } from './mcp.providers.js';
import { ASYNC_OPTIONS_TYPE, ConfigurableModuleClass, OPTIONS_TYPE } from './mcp.module-definition.js';
import type { McpModuleOptions } from './options/mcp-module-options.interface.js';
import { McpOptionsModule } from './options/mcp-options.module.js';
import { McpTasksModule } from './protocol/tasks.module.js';
import { McpTelemetryModule } from './telemetry/telemetry.module.js';
import { McpHttpTransportModule } from './transports/http-transport.module.js';
import { McpStdioTransportModule } from './transports/stdio-transport.module.js';

/** The optional features of an McpModule: a feature left out has no provider at all. */
interface McpFeatures {
  http: boolean;
  stdio: boolean;
  console: boolean;
}

/** Every feature: `forRootAsync` knows its options only at runtime, so each feature decides there whether it builds anything. */
const EVERY_FEATURE: McpFeatures = { http: true, stdio: true, console: true };

/** The features the options of `forRoot` use. */
function featuresOf(options: McpModuleOptions): McpFeatures {
  return { http: options.transports?.http !== false, stdio: Boolean(options.transports?.stdio), console: Boolean(options.console) };
}

/**
 * Serves the application's `@McpTool` methods over MCP, gated by workflow state.
 *
 * `forRoot` imports only the feature modules its options use (no HTTP provider with
 * `transports.http: false`, no console without `console`, no stdio without `transports.stdio`);
 * `forRootAsync` imports them all, and each builds its providers only when the options its
 * factory returned set it. Tasks, deadlines, attempts and the sweepers are built only when the
 * module uses them, under both. The app injects `McpWorkflowService`, `McpApprovalsService`,
 * `McpHealthService`, `McpAuthenticator` and `FsmStateStore`; the rest is internal.
 *
 * @example
 * \@Module({
 *   imports: [McpModule.forRoot({ name: 'billing', version: '1.0.0', machines: [invoiceMachine] })],
 *   providers: [InvoiceTools],
 * })
 * export class AppModule {}
 */
@Module({})
export class McpModule extends ConfigurableModuleClass {
  /** An McpModule of options known now. */
  static override forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    return McpModule.compose(super.forRoot(options), featuresOf(options));
  }

  /** An McpModule whose options a factory (`useFactory`, `useClass`, `useExisting`) builds at startup. */
  static override forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return McpModule.compose(super.forRootAsync(options), EVERY_FEATURE);
  }

  /**
   * The internal modules of one McpModule around the options provider `definition` holds. The
   * McpModule exports the documented services only (`McpWorkflowService`, `McpApprovalsService`,
   * `McpAuthenticator`, `FsmStateStore`, and `McpHealthService` of the health module), as
   * aliases of the core's; the rest is the feature modules' to import.
   */
  private static compose(definition: DynamicModule, features: McpFeatures): DynamicModule {
    const options = McpOptionsModule.register(definition);
    const telemetry = McpTelemetryModule.register(options);
    const core = McpCoreModule.register(options, telemetry, definition.imports);
    const deadlines = McpDeadlinesModule.register(options, core);
    const health = McpHealthModule.register(core, deadlines);
    return {
      ...definition,
      imports: [
        core,
        deadlines,
        McpTasksModule.register(options, core),
        McpRetentionModule.register(options, core),
        health,
        ...(features.http ? [McpHttpTransportModule.register(options, telemetry, core)] : []),
        ...(features.stdio ? [McpStdioTransportModule.register(options, core)] : []),
        ...(features.console ? [McpConsoleModule.register(options, core)] : []),
      ],
      providers: publicServiceProviders,
      exports: [...MCP_PUBLIC_SERVICES, health],
    };
  }
}
