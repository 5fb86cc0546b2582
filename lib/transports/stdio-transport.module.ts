import { Module, type DynamicModule } from '@nestjs/common';
import { providersWhenConfigured } from '../server/configured.providers.js';
import { MCP_STDIO_OPTIONS } from './stdio-options.interface.js';
import { StdioTransport } from './stdio.transport.js';

/** The stdio transport of one McpModule (`transports.stdio`): one session on stdin/stdout. */
@Module({})
export class McpStdioTransportModule {
  /** The stdio transport on the McpModule's options and core modules; built only when `transports.stdio` is set. */
  static register(options: DynamicModule, core: DynamicModule): DynamicModule {
    return {
      module: McpStdioTransportModule,
      imports: [options, core],
      providers: providersWhenConfigured(MCP_STDIO_OPTIONS, [StdioTransport]),
    };
  }
}
