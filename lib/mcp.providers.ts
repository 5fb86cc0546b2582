import { Logger, type Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { McpMachineRegistry } from './machines/machine-registry.js';
import { machineEngineChosen } from './machines/machines.messages.js';
import { WorkflowGate } from './gating/fsm-gate.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './gating/fsm-gate-options.interface.js';
import { TRANSITION_RELAY } from './relays/fsm-transition.bus.js';
import type { McpModuleOptions } from './options/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { MCP_RESOLVED_OPTIONS, resolveMcpOptions, type McpResolvedOptions } from './options/mcp-options.resolver.js';
import { WorkflowStateStore } from './stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from './stores/fsm-store.adapter.js';
import { McpSessionStore } from './stores/mcp-session-store.interface.js';

/** The module options with their defaults, resolved once. */
export const resolvedOptionsProvider: Provider = {
  provide: MCP_RESOLVED_OPTIONS,
  useFactory: (options: McpModuleOptions) => resolveMcpOptions(options),
  inject: [MCP_MODULE_OPTIONS],
};

/** The store of the options, or a new in-memory one. */
export const fsmStateStoreProvider: Provider = {
  provide: WorkflowStateStore,
  useFactory: (options: McpResolvedOptions) => options.store,
  inject: [MCP_RESOLVED_OPTIONS],
};

/** The store as the module uses it: wrapped once in the full protocol, whatever it implements. */
export const fsmStoreAdapterProvider: Provider = {
  provide: FsmStoreAdapter,
  useFactory: (store: WorkflowStateStore) => new FsmStoreAdapter(store),
  inject: [WorkflowStateStore],
};

/** The session store of the options, or a new in-memory one. */
export const mcpSessionStoreProvider: Provider = {
  provide: McpSessionStore,
  useFactory: (options: McpResolvedOptions) => options.sessionStore,
  inject: [MCP_RESOLVED_OPTIONS],
};

/** What the gate reads of the options. */
export const fsmGateOptionsProvider: Provider = {
  provide: WORKFLOW_GATE_OPTIONS,
  useFactory: ({ leaseMs, retention }: McpResolvedOptions): WorkflowGateOptions => ({ leaseMs, retention }),
  inject: [MCP_RESOLVED_OPTIONS],
};

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
      logger.log(machineEngineChosen(options.serverId, id, registry.engine(id).kind));
    }
    return registry;
  },
  inject: [MCP_RESOLVED_OPTIONS],
};

/** The gate: `options.gate` (a subclass) when given, with its dependencies injected. */
export const fsmGateProvider: Provider = {
  provide: WorkflowGate,
  useFactory: (options: McpResolvedOptions, moduleRef: ModuleRef) => moduleRef.create(options.gate),
  inject: [MCP_RESOLVED_OPTIONS, ModuleRef],
};
