import { Module, type DynamicModule } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { McpAccessPolicy } from './auth/mcp-access.policy.js';
import { McpAuthenticator } from './auth/mcp.authenticator.js';
import { McpAppEnhancers } from './discovery/app-enhancers.js';
import { McpApprovalToolsFactory } from './discovery/approval-tools.factory.js';
import { McpHandlerFactory } from './discovery/mcp-handler.factory.js';
import { McpInvokerFactory } from './discovery/mcp-invoker.factory.js';
import { McpMetadataAccessor } from './discovery/mcp-metadata.accessor.js';
import { McpServerScope } from './discovery/mcp-server-scope.js';
import { McpWorkflowRoles } from './discovery/mcp-workflow-roles.js';
import { McpExplorer } from './discovery/mcp.explorer.js';
import { WorkflowResourcesFactory } from './discovery/workflow-resources.factory.js';
import { WorkflowApprovals } from './gating/workflow-approvals.js';
import { WorkflowConfirmations } from './gating/workflow-confirmations.js';
import { McpWorkflowService } from './gating/mcp-workflow.service.js';
import { McpApprovalsService } from './gating/mcp-approvals.service.js';
import { WorkflowWaitingRequests } from './gating/workflow-waiting-requests.js';
import { UnknownStateReporter } from './gating/unknown-state.reporter.js';
import { WorkflowAdmissions } from './gating/workflow-admissions.js';
import { WorkflowCommits } from './gating/workflow-commits.js';
import { WorkflowReceipts } from './gating/workflow-receipts.js';
import { WorkflowAttemptRecorder } from './gating/workflow-attempt.recorder.js';
import { WorkflowRefusals } from './gating/workflow-refusals.js';
import { McpMachineRegistry } from './machines/machine-registry.js';
import { providersWhenUsed } from './server/configured.providers.js';
import { MCP_FEATURE_USE } from './server/mcp-feature-use.interface.js';
import {
  CORE_PUBLIC_TOKENS,
  corePublicProviders,
  featureUseProvider,
  fsmGateProvider,
  fsmStateStoreProvider,
  fsmStoreAdapterProvider,
  fsmTransitionRelayProvider,
  gateObserverProvider,
  machineRegistryProvider,
  mcpSessionStoreProvider,
  mcpTaskStoreProvider,
  workflowTaskResultsProvider,
} from './mcp.providers.js';
import { TaskCallRunner } from './protocol/task-call.runner.js';
import { McpTasks } from './tasks/mcp-tasks.js';
import { WORKFLOW_TASK_RESULTS } from './gating/workflow-task.js';
import { WorkflowGate } from './gating/workflow-gate.js';
import { WORKFLOW_START_FOLLOWS } from './gating/workflow-start-follows.interface.js';
import { McpTaskStore } from './stores/mcp-task-store.interface.js';
import { McpSessionStore } from './stores/mcp-session-store.interface.js';
import { McpInputRounds } from './protocol/input.rounds.js';
import { McpListMapper } from './protocol/mcp-list.mapper.js';
import { McpServerFactory } from './protocol/mcp-server.factory.js';
import { McpShutdownDrain } from './protocol/mcp-shutdown.drain.js';
import { PrimitiveCallHandler } from './protocol/primitive-call.handler.js';
import { ToolCallHandler } from './protocol/tool-call.handler.js';
import { McpPrimitiveRegistry } from './registry/mcp-primitive.registry.js';
import { McpToolRegistry } from './registry/mcp-tool.registry.js';
import { TRANSITION_RELAY, WorkflowTransitionBus } from './relays/workflow-transition.bus.js';
import { McpInstanceStates } from './sessions/mcp-instance-states.js';
import { McpSessionFollows } from './sessions/mcp-session-follows.js';
import { McpSessionRegistry } from './sessions/mcp-session.registry.js';
import { ToolMenuService } from './sessions/tool-menu.service.js';
import { McpWaitingDecisions } from './sessions/mcp-waiting-decisions.js';
import { FsmStateStoreCheck } from './stores/fsm-state-store.check.js';
import { FsmStateStore } from './stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from './stores/fsm-store.adapter.js';
import { McpInMemoryConnections } from './transports/in-memory.connections.js';

/**
 * What every McpModule runs, whatever it serves: the store and its adapter, the machines,
 * discovery of the app's handlers, the registries, the gate, the sessions and their menus, the
 * protocol handlers and the in-memory connections of the testing client, and which optional
 * features the module uses. Internal: the feature modules (deadlines, tasks, retention, health,
 * HTTP, stdio, console) import it for what they build on; the app sees only what the McpModule
 * re-exports (its documented services).
 */
@Module({})
export class McpCoreModule {
  /**
   * The core of one McpModule, on its options and telemetry modules; `imports` are the app's
   * own `forRootAsync` imports, so that a `gate.useClass` can inject what they export.
   */
  static register(options: DynamicModule, telemetry: DynamicModule, imports: DynamicModule['imports'] = []): DynamicModule {
    return {
      module: McpCoreModule,
      imports: [DiscoveryModule, options, telemetry, ...imports],
      providers: [
        fsmStateStoreProvider,
        FsmStateStoreCheck,
        fsmStoreAdapterProvider,
        mcpSessionStoreProvider,
        mcpTaskStoreProvider,
        fsmTransitionRelayProvider,
        machineRegistryProvider,
        gateObserverProvider,
        McpMetadataAccessor,
        McpAppEnhancers,
        McpHandlerFactory,
        McpToolRegistry,
        McpPrimitiveRegistry,
        McpWorkflowRoles,
        McpInvokerFactory,
        McpApprovalToolsFactory,
        WorkflowResourcesFactory,
        McpServerScope,
        McpExplorer,
        UnknownStateReporter,
        WorkflowRefusals,
        ...providersWhenUsed('attempts', [WorkflowAttemptRecorder]),
        WorkflowConfirmations,
        WorkflowApprovals,
        WorkflowAdmissions,
        WorkflowReceipts,
        WorkflowCommits,
        WorkflowTransitionBus,
        fsmGateProvider,
        WorkflowWaitingRequests,
        McpApprovalsService,
        McpWorkflowService,
        McpSessionFollows,
        { provide: WORKFLOW_START_FOLLOWS, useExisting: McpSessionFollows },
        McpInstanceStates,
        McpWaitingDecisions,
        ToolMenuService,
        McpListMapper,
        McpShutdownDrain,
        ToolCallHandler,
        PrimitiveCallHandler,
        McpInputRounds,
        McpTasks,
        workflowTaskResultsProvider,
        TaskCallRunner,
        McpServerFactory,
        McpSessionRegistry,
        McpAccessPolicy,
        McpAuthenticator,
        McpInMemoryConnections,
        featureUseProvider,
        ...corePublicProviders,
      ],
      exports: [
        MCP_FEATURE_USE,
        ...CORE_PUBLIC_TOKENS,
        FsmStoreAdapter,
        McpMachineRegistry,
        McpToolRegistry,
        McpSessionRegistry,
        WorkflowTransitionBus,
        TRANSITION_RELAY,
        WorkflowGate,
        McpWorkflowService,
        McpApprovalsService,
        McpAuthenticator,
        McpAccessPolicy,
        McpServerFactory,
        McpListMapper,
        ToolCallHandler,
        PrimitiveCallHandler,
        ToolMenuService,
        McpShutdownDrain,
        McpTasks,
        McpTaskStore,
        WORKFLOW_TASK_RESULTS,
        McpSessionStore,
        FsmStateStore,
        WorkflowAttemptRecorder,
      ],
    };
  }
}
