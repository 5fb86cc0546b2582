import { Logger, type Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { McpMachineRegistry } from './machines/machine-registry.js';
import { machineEngineChosen } from './machines/machines.messages.js';
import { WorkflowGate } from './gating/workflow-gate.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './gating/workflow-gate-options.interface.js';
import { TRANSITION_RELAY } from './relays/workflow-transition.bus.js';
import { WORKFLOW_GATE_OBSERVER } from './gating/workflow-gate-observer.interface.js';
import { composeGateObservers } from './gating/gate-observers.js';
import { WorkflowAttemptRecorder } from './gating/workflow-attempts.recorder.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from './options/mcp-resolved-options.interface.js';
import { MCP_SESSION_OPTIONS } from './sessions/session-options.interface.js';
import { McpTelemetry } from './telemetry/mcp-telemetry.js';
import { FsmStateStore } from './stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from './stores/fsm-store.adapter.js';
import { McpSessionStore } from './stores/mcp-session-store.interface.js';
import { McpTaskStore } from './stores/mcp-task-store.interface.js';
import { WORKFLOW_TASK_RESULTS } from './gating/workflow-task.js';
import { McpTasks } from './tasks/mcp-tasks.service.js';
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

/** The gate's observer: the module's telemetry, then the attempts recorder. */
export const gateObserverProvider: Provider = {
  provide: WORKFLOW_GATE_OBSERVER,
  useFactory: (telemetry: McpTelemetry, attempts: WorkflowAttemptRecorder) => composeGateObservers(telemetry.gate, attempts),
  inject: [McpTelemetry, WorkflowAttemptRecorder],
};
