export * from './machine.interface.js';
export * from './define-machine.js';
export * from './fsm-engine.interface.js';
export * from './table-fsm.engine.js';
export * from './xstate-fsm.engine.js';
export * from './xstate.loader.js';
export * from './fsm-engine.factory.js';
