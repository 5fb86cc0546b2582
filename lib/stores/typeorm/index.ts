export * from './typeorm-fsm-state-store-options.interface.js';
export * from './typeorm-fsm-state.store.js';
export * from './fsm-state.migration.js';
export * from './postgres-fsm-transition.relay.js';
