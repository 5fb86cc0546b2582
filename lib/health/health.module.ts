import { Module, type DynamicModule } from '@nestjs/common';
import { McpHealthService } from './mcp-health.service.js';

/**
 * The health of one McpModule: `McpHealthService` (the store and relay checks the app's health
 * controller, or the terminus indicators of `nestjs-mcp-fsm/terminus`, call). Always there: it
 * holds no timer and no connection, and the app may inject it whatever the options say.
 */
@Module({})
export class McpHealthModule {
  /** The health service on the McpModule's core and deadlines modules. */
  static register(core: DynamicModule, deadlines: DynamicModule): DynamicModule {
    return { module: McpHealthModule, imports: [core, deadlines], providers: [McpHealthService], exports: [McpHealthService] };
  }
}
