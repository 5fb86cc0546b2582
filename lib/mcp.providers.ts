import type { Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { McpMachineRegistry } from './machines/machine-registry.js';
import { FsmGate } from './gating/fsm-gate.js';
import { FSM_GATE_OPTIONS, type FsmGateOptions } from './gating/fsm-gate-options.interface.js';
import { FSM_TRANSITION_RELAY } from './relays/fsm-transition.bus.js';
import type { McpModuleOptions } from './options/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { MCP_RESOLVED_OPTIONS, resolveMcpOptions, type McpResolvedOptions } from './options/mcp-options.resolver.js';
import { FsmStateStore } from './stores/fsm-state-store.interface.js';
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
  useFactory: (options: McpResolvedOptions) => options.sessionStore,
  inject: [MCP_RESOLVED_OPTIONS],
};

/** What the gate reads of the options. */
export const fsmGateOptionsProvider: Provider = {
  provide: FSM_GATE_OPTIONS,
  useFactory: ({ leaseMs, retention }: McpResolvedOptions): FsmGateOptions => ({ leaseMs, retention }),
  inject: [MCP_RESOLVED_OPTIONS],
};

/** The transition relay of the options (`null` without one). */
export const fsmTransitionRelayProvider: Provider = {
  provide: FSM_TRANSITION_RELAY,
  useFactory: (options: McpResolvedOptions) => options.transitionRelay ?? null,
  inject: [MCP_RESOLVED_OPTIONS],
};

/** The machines with their engines, built once (a machine its engine cannot run fails here). */
export const machineRegistryProvider: Provider = {
  provide: McpMachineRegistry,
  useFactory: (options: McpResolvedOptions) => McpMachineRegistry.build(options.machines, options.engine),
  inject: [MCP_RESOLVED_OPTIONS],
};

/** The gate: `options.gate` (a subclass) when given, with its dependencies injected. */
export const fsmGateProvider: Provider = {
  provide: FsmGate,
  useFactory: (options: McpResolvedOptions, moduleRef: ModuleRef) => moduleRef.create(options.gate),
  inject: [MCP_RESOLVED_OPTIONS, ModuleRef],
};
