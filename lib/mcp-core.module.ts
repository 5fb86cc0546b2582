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
import { WorkflowApprovals } from './gating/approval.step.js';
import { WorkflowConfirmations } from './gating/confirmation.step.js';
import { McpWorkflowService } from './gating/mcp-workflow.service.js';
import { McpApprovalsService } from './gating/mcp-approvals.service.js';
import { WorkflowWaitingRequests } from './gating/waiting-requests.reader.js';
import { UnknownStateReporter } from './gating/unknown-state.reporter.js';
import { WorkflowAdmissions } from './gating/admission.step.js';
import { WorkflowCommits } from './gating/commit.step.js';
import { WorkflowReceipts } from './gating/receipt.step.js';
import { WorkflowReceiptSweeper } from './gating/workflow-receipt.sweeper.js';
import { WorkflowAttemptRecorder } from './gating/workflow-attempts.recorder.js';
import { WorkflowRefusals } from './gating/workflow-refusals.js';
import { WorkflowRetentionSweeper } from './gating/workflow-retention.sweeper.js';
import { WorkflowDeadlineScheduler } from './deadlines/workflow-deadline.scheduler.js';
import { WorkflowDeadlines } from './deadlines/workflow-deadlines.js';
import { McpMachineRegistry } from './machines/machine-registry.js';
import {
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
import { TaskCallResumer } from './protocol/task-call.resumer.js';
import { McpTasks } from './tasks/mcp-tasks.service.js';
import { WORKFLOW_TASK_RESULTS } from './gating/workflow-task.js';
import { McpTaskStore } from './stores/mcp-task-store.interface.js';
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
import { McpSessionStore } from './stores/mcp-session-store.interface.js';
import { McpInMemoryConnections } from './transports/in-memory.connections.js';

/**
 * What every McpModule runs, whatever it serves: the store and its adapter, the machines,
 * discovery of the app's handlers, the registries, the gate, the sessions and their menus, the
 * protocol handlers and the in-memory connections of the testing client. The feature modules
 * (HTTP, stdio, console, health) import it for what they build on.
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
        WorkflowAttemptRecorder,
        WorkflowConfirmations,
        WorkflowApprovals,
        WorkflowAdmissions,
        WorkflowReceipts,
        WorkflowCommits,
        WorkflowTransitionBus,
        WorkflowRetentionSweeper,
        WorkflowReceiptSweeper,
        WorkflowDeadlines,
        WorkflowDeadlineScheduler,
        fsmGateProvider,
        WorkflowWaitingRequests,
        McpApprovalsService,
        McpWorkflowService,
        McpSessionFollows,
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
        TaskCallResumer,
        McpServerFactory,
        McpSessionRegistry,
        McpAccessPolicy,
        McpAuthenticator,
        McpInMemoryConnections,
      ],
      exports: [
        FsmStateStore,
        McpToolRegistry,
        McpWorkflowService,
        McpApprovalsService,
        McpSessionRegistry,
        WorkflowTransitionBus,
        McpAuthenticator,
        FsmStoreAdapter,
        McpMachineRegistry,
        McpSessionStore,
        McpTaskStore,
        McpTasks,
        WORKFLOW_TASK_RESULTS,
        TRANSITION_RELAY,
        McpServerFactory,
        McpListMapper,
        ToolCallHandler,
        PrimitiveCallHandler,
        ToolMenuService,
        McpShutdownDrain,
        McpAccessPolicy,
        WorkflowAttemptRecorder,
        WorkflowDeadlineScheduler,
      ],
    };
  }
}
