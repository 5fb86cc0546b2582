export * from './relays/redis/redis-fsm-transition.relay.js';
