export * from './relays/redis/redis-transition.relay.js';
