export * from './fsm-state.guard.js';
export * from './fsm-transition.interceptor.js';
export * from './fsm-refusal.error.js';
export * from './fsm-call.js';
