import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpAccessPolicy } from './auth/mcp-access.policy.js';
import { McpAuthenticator } from './auth/mcp.authenticator.js';
import { McpAppEnhancers } from './discovery/app-enhancers.js';
import { McpHandlerFactory } from './discovery/mcp-handler.factory.js';
import { McpMetadataAccessor } from './discovery/mcp-metadata.accessor.js';
import { McpExplorer } from './discovery/mcp.explorer.js';
import { McpServerScope } from './discovery/mcp-server-scope.js';
import { McpInvokerFactory } from './discovery/mcp-invoker.factory.js';
import { McpWorkflowRoles } from './discovery/mcp-workflow-roles.js';
import { WorkflowResourcesFactory } from './discovery/workflow-resources.factory.js';
import { McpPrimitiveRegistry } from './registry/mcp-primitive.registry.js';
import { McpToolRegistry } from './registry/mcp-tool.registry.js';
import { WorkflowRefusals } from './gating/workflow-refusals.js';
import { WorkflowAttemptRecorder } from './gating/workflow-attempts.recorder.js';
import { WorkflowConfirmations } from './gating/confirmation.step.js';
import { McpInputRounds } from './protocol/input-required.rounds.js';
import { WorkflowRetentionSweeper } from './gating/workflow-retention.sweeper.js';
import { WorkflowTransitionBus } from './relays/workflow-transition.bus.js';
import { McpWorkflowService } from './gating/mcp-workflow.service.js';
import { UnknownStateReporter } from './gating/unknown-state.reporter.js';
import { ConfigurableModuleClass } from './mcp.module-definition.js';
import { WorkflowConsoleData } from './console/console-data.js';
import { WorkflowConsoleStreams } from './console/console-events.stream.js';
import { WorkflowConsoleRoutes } from './console/console.routes.js';
import { WorkflowConsoleSignIn } from './console/console-sign-in.js';
import {
  fsmGateProvider,
  fsmStateStoreProvider,
  fsmStoreAdapterProvider,
  fsmTransitionRelayProvider,
  machineRegistryProvider,
  mcpSessionStoreProvider,
  optionSliceProviders,
  resolvedOptionsProvider,
} from './mcp.providers.js';
import { McpServerFactory } from './protocol/mcp-server.factory.js';
import { McpInstanceStates } from './sessions/mcp-instance-states.js';
import { McpSessionFollows } from './sessions/mcp-session-follows.js';
import { McpSessionRegistry } from './sessions/mcp-session.registry.js';
import { FsmStateStoreCheck } from './stores/fsm-state-store.check.js';
import { McpShutdownDrain } from './protocol/mcp-shutdown.drain.js';
import { ModernServerFactory } from './protocol/modern-server.factory.js';
import { PrimitiveCallHandler } from './protocol/primitive-call.handler.js';
import { ToolCallHandler } from './protocol/tool-call.handler.js';
import { ToolMenuService } from './sessions/tool-menu.service.js';
import { McpListMapper } from './protocol/mcp-list.mapper.js';
import { McpSessionAdmission } from './transports/session-admission.js';
import { StatefulHttpSessions } from './transports/stateful-http.sessions.js';
import { SessionReplyForwarder } from './transports/session-reply.forwarder.js';
import { StdioTransport } from './transports/stdio.transport.js';
import { McpInMemoryConnections } from './transports/in-memory.connections.js';
import { StreamableHttpTransport } from './transports/streamable-http.transport.js';
import { telemetryProviders } from './telemetry/telemetry.providers.js';
import { McpHealthService } from './health/mcp-health.service.js';

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
    resolvedOptionsProvider,
    ...optionSliceProviders,
    ...telemetryProviders,
    fsmStateStoreProvider,
    FsmStateStoreCheck,
    fsmStoreAdapterProvider,
    mcpSessionStoreProvider,
    fsmTransitionRelayProvider,
    machineRegistryProvider,
    McpMetadataAccessor,
    McpAppEnhancers,
    McpHandlerFactory,
    McpToolRegistry,
    McpPrimitiveRegistry,
    McpWorkflowRoles,
    McpInvokerFactory,
    WorkflowResourcesFactory,
    McpServerScope,
    McpExplorer,
    UnknownStateReporter,
    WorkflowRefusals,
    WorkflowAttemptRecorder,
    WorkflowConfirmations,
    WorkflowTransitionBus,
    WorkflowRetentionSweeper,
    fsmGateProvider,
    McpWorkflowService,
    McpSessionFollows,
    McpInstanceStates,
    ToolMenuService,
    McpListMapper,
    McpShutdownDrain,
    ToolCallHandler,
    PrimitiveCallHandler,
    McpInputRounds,
    McpServerFactory,
    ModernServerFactory,
    McpSessionRegistry,
    McpSessionAdmission,
    McpAccessPolicy,
    McpAuthenticator,
    StatefulHttpSessions,
    SessionReplyForwarder,
    StreamableHttpTransport,
    StdioTransport,
    McpInMemoryConnections,
    WorkflowConsoleData,
    WorkflowConsoleStreams,
    WorkflowConsoleRoutes,
    WorkflowConsoleSignIn,
    McpHealthService,
  ],
  exports: [
    fsmStateStoreProvider,
    McpToolRegistry,
    McpWorkflowService,
    McpSessionRegistry,
    WorkflowTransitionBus,
    McpAuthenticator,
    McpHealthService,
  ],
})
export class McpModule extends ConfigurableModuleClass {}
