import { Module, type DynamicModule } from '@nestjs/common';
import { providersWhenConfigured } from '../server/configured.providers.js';
import { MCP_CONSOLE_OPTIONS } from './console-options.interface.js';
import { WorkflowConsoleActions } from './console-actions.js';
import { WorkflowConsoleCatalog } from './console-catalog.js';
import { WorkflowConsoleData } from './console-data.js';
import { WorkflowConsoleDiagrams } from './console-diagrams.js';
import { WorkflowConsoleInbox } from './console-inbox.js';
import { WorkflowConsoleStreams } from './console.streams.js';
import { WorkflowConsoleSignIn } from './console-sign-in.js';
import { WorkflowConsoleRoutes } from './console.routes.js';

/** The workflow console of one McpModule (`console`): its pages, live streams and sign-in. */
@Module({})
export class McpConsoleModule {
  /** The console on the McpModule's options and core modules; built only when `console` is set. */
  static register(options: DynamicModule, core: DynamicModule): DynamicModule {
    return {
      module: McpConsoleModule,
      imports: [options, core],
      providers: providersWhenConfigured(MCP_CONSOLE_OPTIONS, [
        WorkflowConsoleCatalog,
        WorkflowConsoleDiagrams,
        WorkflowConsoleData,
        WorkflowConsoleActions,
        WorkflowConsoleInbox,
        WorkflowConsoleStreams,
        WorkflowConsoleSignIn,
        WorkflowConsoleRoutes,
      ]),
    };
  }
}
