import { Module, type DynamicModule } from '@nestjs/common';
import { providersWhenConfigured } from '../server/configured.providers.js';
import { MCP_HTTP_OPTIONS } from '../server/http-options.interface.js';
import { ModernServerFactory } from '../protocol/modern-server.factory.js';
import { ModernTaskMethods } from '../protocol/modern-task.methods.js';
import { McpSessionAdmission } from './session-admission.js';
import { SessionReplyForwarder } from './session-reply.forwarder.js';
import { StatefulHttpSessions } from './stateful-http.sessions.js';
import { StreamableHttpTransport } from './streamable-http.transport.js';

/** Streamable HTTP of one McpModule (`transports.http`): the endpoint, its sessions and their limits, and the 2026-07-28 servers. */
@Module({})
export class McpHttpTransportModule {
  /** The HTTP transport on the McpModule's options, telemetry and core modules; built only when `transports.http` is not `false`. */
  static register(options: DynamicModule, telemetry: DynamicModule, core: DynamicModule): DynamicModule {
    return {
      module: McpHttpTransportModule,
      imports: [options, telemetry, core],
      providers: providersWhenConfigured(MCP_HTTP_OPTIONS, [
        SessionReplyForwarder,
        McpSessionAdmission,
        StatefulHttpSessions,
        ModernServerFactory,
        ModernTaskMethods,
        StreamableHttpTransport,
      ]),
    };
  }
}
