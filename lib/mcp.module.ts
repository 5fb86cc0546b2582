import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpMetadataAccessor } from './discovery/mcp-metadata.accessor.js';
import { McpToolExplorer } from './discovery/mcp-tool.explorer.js';
import { McpToolRegistry } from './discovery/mcp-tool.registry.js';
import { McpMachineRegistry } from './fsm/machine-registry.js';
import { FsmRefusals } from './gating/fsm-refusals.js';
import { ConfigurableModuleClass } from './mcp.module-definition.js';
import { fsmStateGuardProvider, fsmStateStoreProvider, fsmTransitionInterceptorProvider } from './mcp.providers.js';
import { FsmTransitionBus } from './server/fsm-transition.bus.js';
import { McpServerFactory } from './server/mcp-server.factory.js';
import { McpSessionRegistry } from './server/mcp-session.registry.js';
import { ToolCallHandler } from './server/tool-call.handler.js';
import { ToolMenuService } from './server/tool-menu.service.js';
import { StdioTransport } from './transports/stdio.transport.js';
import { StreamableHttpTransport } from './transports/streamable-http.transport.js';

/**
 * Serves the application's `@McpTool` methods over MCP, gated by workflow state.
 *
 * @example
 * \@Module({
 *   imports: [McpModule.forRoot({ name: 'billing', version: '1.0.0', machines: [invoiceMachine] })],
 *   providers: [InvoiceTools],
 * })
 * export class AppModule {}
 */
@Module({
  imports: [DiscoveryModule],
  providers: [
    fsmStateStoreProvider,
    McpMetadataAccessor,
    McpMachineRegistry,
    McpToolRegistry,
    McpToolExplorer,
    FsmRefusals,
    fsmStateGuardProvider,
    fsmTransitionInterceptorProvider,
    FsmTransitionBus,
    ToolMenuService,
    ToolCallHandler,
    McpServerFactory,
    McpSessionRegistry,
    StreamableHttpTransport,
    StdioTransport,
  ],
  exports: [fsmStateStoreProvider, McpToolRegistry, McpSessionRegistry, FsmTransitionBus],
})
export class McpModule extends ConfigurableModuleClass {}
