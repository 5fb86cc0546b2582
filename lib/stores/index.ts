export * from './fsm-state-store.interface.js';
export * from './fsm-transition-record.interface.js';
export * from './atomic-fsm-state-store.interface.js';
export * from './transactional-fsm-state-store.interface.js';
export * from './in-memory-fsm-state.store.js';
export * from './mcp-session-store.interface.js';
export * from './mcp-session-record.error.js';
export * from './in-memory-mcp-session.store.js';
