import { Logger, type InjectionToken, type Provider } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import { McpAuthenticator } from './auth/mcp.authenticator.js';
import { handlerUsesOf } from './discovery/handler-uses.js';
import { McpMetadataAccessor } from './discovery/mcp-metadata.accessor.js';
import { McpApprovalsService } from './gating/mcp-approvals.service.js';
import { McpWorkflowService } from './gating/mcp-workflow.service.js';
import { McpMachineRegistry } from './machines/machine-registry.js';
import { machineEngineChosen } from './machines/machines.messages.js';
import { WorkflowGate } from './gating/workflow-gate.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './gating/workflow-gate-options.interface.js';
import { TRANSITION_RELAY } from './relays/workflow-transition.bus.js';
import { WORKFLOW_GATE_OBSERVER } from './gating/workflow-gate-observer.interface.js';
import { composeGateObservers } from './gating/gate-observers.js';
import { WorkflowAttemptRecorder } from './gating/workflow-attempt.recorder.js';
import { MCP_FEATURE_USE, type McpFeatureUse } from './server/mcp-feature-use.interface.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from './options/mcp-resolved-options.interface.js';
import { MCP_SESSION_OPTIONS } from './sessions/session-options.interface.js';
import { McpTelemetry } from './telemetry/mcp-telemetry.js';
import { FsmStateStore } from './stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from './stores/fsm-store.adapter.js';
import { McpSessionStore } from './stores/mcp-session-store.interface.js';
import { McpTaskStore } from './stores/mcp-task-store.interface.js';
import { WORKFLOW_TASK_RESULTS } from './gating/workflow-task.js';
import { McpTasks } from './tasks/mcp-tasks.js';
import { MCP_TASK_OPTIONS, type McpResolvedTaskOptions } from './tasks/task-options.interface.js';

/** The store of the options, or a new in-memory one. */
export const fsmStateStoreProvider: Provider = {
  provide: FsmStateStore,
  useFactory: (options: McpResolvedOptions) => options.store,
  inject: [MCP_RESOLVED_OPTIONS],
};

/** The store as the module uses it: wrapped once in the full protocol, whatever it implements. */
export const fsmStoreAdapterProvider: Provider = {
  provide: FsmStoreAdapter,
  useFactory: (store: FsmStateStore) => new FsmStoreAdapter(store),
  inject: [FsmStateStore],
};

/** The session store of the options, or a new in-memory one. */
export const mcpSessionStoreProvider: Provider = {
  provide: McpSessionStore,
  useFactory: (sessions: McpResolvedOptions['sessions']) => sessions.store,
  inject: [MCP_SESSION_OPTIONS],
};

/** The task store of the options, or a new in-memory one. */
export const mcpTaskStoreProvider: Provider = {
  provide: McpTaskStore,
  useFactory: (tasks: McpResolvedTaskOptions) => tasks.store,
  inject: [MCP_TASK_OPTIONS],
};

/** What settles the task of a call that waited: the module's tasks. */
export const workflowTaskResultsProvider: Provider = { provide: WORKFLOW_TASK_RESULTS, useExisting: McpTasks };

/** The transition relay of the options (`null` without one). */
export const fsmTransitionRelayProvider: Provider = {
  provide: TRANSITION_RELAY,
  useFactory: (options: McpResolvedOptions) => options.transitionRelay ?? null,
  inject: [MCP_RESOLVED_OPTIONS],
};

/**
 * The machines with their engines, built once (a machine its engine cannot run fails here);
 * one log line per machine names the engine that runs it.
 */
export const machineRegistryProvider: Provider = {
  provide: McpMachineRegistry,
  useFactory: async (options: McpResolvedOptions) => {
    const registry = await McpMachineRegistry.build(options.machines, options.engine);
    const logger = new Logger('McpModule');
    for (const id of registry.ids()) {
      logger.log(machineEngineChosen(options.server.serverId, id, registry.engine(id).kind));
    }
    return registry;
  },
  inject: [MCP_RESOLVED_OPTIONS],
};

/** The gate: `gate.useClass` (a subclass) when given, with its dependencies injected. */
export const fsmGateProvider: Provider = {
  provide: WorkflowGate,
  useFactory: (gate: WorkflowGateOptions, moduleRef: ModuleRef) => moduleRef.create(gate.useClass),
  inject: [WORKFLOW_GATE_OPTIONS, ModuleRef],
};

/** The gate's observer: the module's telemetry, then the attempts recorder when the store keeps attempts. */
export const gateObserverProvider: Provider = {
  provide: WORKFLOW_GATE_OBSERVER,
  useFactory: (telemetry: McpTelemetry, attempts: WorkflowAttemptRecorder | null) =>
    attempts ? composeGateObservers(telemetry.gate, attempts) : telemetry.gate,
  inject: [McpTelemetry, WorkflowAttemptRecorder],
};

/**
 * Which optional features the module runs ({@link McpFeatureUse}): from the resolved options,
 * the store's capabilities, the machines' `after` transitions and the metadata of the handlers
 * this server serves, read before any provider of a feature is built.
 */
export const featureUseProvider: Provider = {
  provide: MCP_FEATURE_USE,
  useFactory: (
    options: McpResolvedOptions,
    store: FsmStoreAdapter,
    machines: McpMachineRegistry,
    discovery: DiscoveryService,
    scanner: MetadataScanner,
    accessor: McpMetadataAccessor,
  ): McpFeatureUse => {
    const handlers = handlerUsesOf(discovery, scanner, accessor, options.server.serverId);
    const { finishedMs, idleHandleMs } = options.gate.retention;
    const after = machines.ids().some((id) => machines.engine(id).deadlines().length > 0);
    return {
      attempts: store.supports.attempts,
      retention: finishedMs !== undefined || idleHandleMs !== undefined,
      receipts: store.supports.receipts,
      deadlines: after || handlers.expiringApprovals || handlers.deadlineEffects,
      tasks: handlers.taskTools || handlers.approvals,
    };
  },
  inject: [MCP_RESOLVED_OPTIONS, FsmStoreAdapter, McpMachineRegistry, DiscoveryService, MetadataScanner, McpMetadataAccessor],
};

/**
 * What an app injects from an McpModule: the documented services (with `McpHealthService`,
 * which the health module exports). Everything else the core holds is internal to the module.
 */
export const MCP_PUBLIC_SERVICES: readonly InjectionToken[] = [McpWorkflowService, McpApprovalsService, McpAuthenticator, FsmStateStore];

/** The token under which the core exports a public service to the McpModule, and nothing else. */
const coreTokens = new Map<InjectionToken, symbol>(
  MCP_PUBLIC_SERVICES.map((token) => [token, Symbol(`McpCore:${typeof token === 'function' ? token.name : String(token)}`)]),
);

/** The tokens under which the core exports the public services to the McpModule. */
export const CORE_PUBLIC_TOKENS: readonly symbol[] = [...coreTokens.values()];

/** The core's exports of the public services, each under a token only the McpModule knows. */
export const corePublicProviders: Provider[] = MCP_PUBLIC_SERVICES.map((token) => ({
  provide: coreTokens.get(token)!,
  useExisting: token,
}));

/** The McpModule's own providers of the public services: aliases of the core's, so the app injects those and no other. */
export const publicServiceProviders: Provider[] = MCP_PUBLIC_SERVICES.map((token) => ({
  provide: token,
  useExisting: coreTokens.get(token)!,
}));
