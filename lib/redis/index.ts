export * from './redis-fsm-transition.relay.js';
