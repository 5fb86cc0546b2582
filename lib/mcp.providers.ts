import type { Provider } from '@nestjs/common';
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
