export * from './typeorm-fsm-state-store-options.interface.js';
export * from './typeorm-fsm-state.store.js';
export * from './fsm-state.migration.js';
export * from './postgres-fsm-transition.relay.js';
export * from './typeorm-mcp-session-store-options.interface.js';
export * from './typeorm-mcp-session.store.js';
export * from './mcp-session.migration.js';
