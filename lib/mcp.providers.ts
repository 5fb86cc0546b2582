import type { Provider } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { FsmStateGuard } from './gating/fsm-state.guard.js';
import { FsmTransitionInterceptor } from './gating/fsm-transition.interceptor.js';
import type { McpModuleOptions } from './interfaces/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from './mcp.module-definition.js';
import { FsmStateStore } from './stores/fsm-state-store.interface.js';
import { InMemoryFsmStateStore } from './stores/in-memory-fsm-state.store.js';

/** The store of the options, or a new in-memory one. */
export const fsmStateStoreProvider: Provider = {
  provide: FsmStateStore,
  useFactory: (options: McpModuleOptions) => options.store ?? new InMemoryFsmStateStore(),
  inject: [MCP_MODULE_OPTIONS],
};

/** The gate's guard: `options.stateGuard` (a subclass) when given, with its dependencies injected. */
export const fsmStateGuardProvider: Provider = {
  provide: FsmStateGuard,
  useFactory: (options: McpModuleOptions, moduleRef: ModuleRef) => moduleRef.create(options.stateGuard ?? FsmStateGuard),
  inject: [MCP_MODULE_OPTIONS, ModuleRef],
};

/** The gate's interceptor: `options.transitionInterceptor` (a subclass) when given. */
export const fsmTransitionInterceptorProvider: Provider = {
  provide: FsmTransitionInterceptor,
  useFactory: (options: McpModuleOptions, moduleRef: ModuleRef) =>
    moduleRef.create(options.transitionInterceptor ?? FsmTransitionInterceptor),
  inject: [MCP_MODULE_OPTIONS, ModuleRef],
};
