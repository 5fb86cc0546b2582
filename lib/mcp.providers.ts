import { Logger, type Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { McpMachineRegistry } from './machines/machine-registry.js';
import { machineEngineChosen } from './machines/machines.messages.js';
import { WorkflowGate } from './gating/workflow-gate.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './gating/workflow-gate-options.interface.js';
import { WORKFLOW_CONFIRMATION_OPTIONS, type WorkflowConfirmationOptions } from './gating/confirmation-options.interface.js';
import { TRANSITION_RELAY } from './relays/workflow-transition.bus.js';
import type { McpModuleOptions } from './options/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { movedOptionsIn, resolveMcpOptions } from './options/mcp-options.resolver.js';
import {
  MCP_AUTH_OPTIONS,
  MCP_CONSOLE_OPTIONS,
  MCP_DISCOVERY_OPTIONS,
  MCP_HTTP_OPTIONS,
  MCP_INPUT_REQUEST_OPTIONS,
  MCP_RESOLVED_OPTIONS,
  MCP_SERVER_IDENTITY,
  MCP_SESSION_OPTIONS,
  MCP_STDIO_OPTIONS,
  type McpResolvedOptions,
} from './options/mcp-resolved-options.interface.js';
import { MCP_STATE_CACHE_OPTIONS } from './sessions/state-cache-options.interface.js';
import { deprecatedOptions } from './options/options.messages.js';
import { FsmStateStore } from './stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from './stores/fsm-store.adapter.js';
import { McpSessionStore } from './stores/mcp-session-store.interface.js';

/** The module options with their defaults, resolved once (options under their deprecated names are read, with one warning). */
export const resolvedOptionsProvider: Provider = {
  provide: MCP_RESOLVED_OPTIONS,
  useFactory: (options: McpModuleOptions): McpResolvedOptions => {
    const moved = movedOptionsIn(options);
    if (moved.length) {
      new Logger('McpModule').warn(deprecatedOptions(moved));
    }
    return resolveMcpOptions(options);
  },
  inject: [MCP_MODULE_OPTIONS],
};

/** The slices of the resolved options, each under its own token, so a class injects only what it reads. */
export const optionSliceProviders: Provider[] = [
  { provide: MCP_SERVER_IDENTITY, useFactory: (options: McpResolvedOptions) => options.server, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_HTTP_OPTIONS, useFactory: (options: McpResolvedOptions) => options.http, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_STDIO_OPTIONS, useFactory: (options: McpResolvedOptions) => options.stdio, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_SESSION_OPTIONS, useFactory: (options: McpResolvedOptions) => options.sessions, inject: [MCP_RESOLVED_OPTIONS] },
  {
    provide: WORKFLOW_GATE_OPTIONS,
    useFactory: (options: McpResolvedOptions): WorkflowGateOptions => options.gate,
    inject: [MCP_RESOLVED_OPTIONS],
  },
  { provide: MCP_DISCOVERY_OPTIONS, useFactory: (options: McpResolvedOptions) => options.discovery, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_AUTH_OPTIONS, useFactory: (options: McpResolvedOptions) => options.auth, inject: [MCP_RESOLVED_OPTIONS] },
  {
    provide: MCP_INPUT_REQUEST_OPTIONS,
    useFactory: (options: McpResolvedOptions) => options.inputRequests,
    inject: [MCP_RESOLVED_OPTIONS],
  },
  {
    provide: WORKFLOW_CONFIRMATION_OPTIONS,
    useFactory: ({ inputRequests }: McpResolvedOptions): WorkflowConfirmationOptions => ({
      timeoutMs: inputRequests.timeoutMs,
      requestStateTtlMs: inputRequests.requestStateTtlMs,
    }),
    inject: [MCP_RESOLVED_OPTIONS],
  },
  { provide: MCP_CONSOLE_OPTIONS, useFactory: (options: McpResolvedOptions) => options.console, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_STATE_CACHE_OPTIONS, useFactory: (options: McpResolvedOptions) => options.stateCache, inject: [MCP_RESOLVED_OPTIONS] },
];

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
