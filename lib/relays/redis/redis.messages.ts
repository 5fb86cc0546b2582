/** Messages of the Redis transition relay, worded once (operators and developers read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Bootstrap error: the relay was given a URL but the optional peer `ioredis` is not installed. */
export const redisClientMissing = (): string =>
  'RedisTransitionRelay needs the optional peer dependency "ioredis" to connect to a URL: npm install ioredis (or pass an ioredis client).';

/** Bootstrap error: an empty pub/sub channel name. */
export const redisInvalidChannel = (channel: string): string =>
  `RedisTransitionRelay: channel ${JSON.stringify(channel)} must be a non-empty string.`;

/** Log line (once per outage): a connection of the relay failed; ioredis reconnects on its own. */
export const redisConnectionLost = (role: string, error: unknown): string =>
  `Transition relay lost its Redis ${role} connection (${reasonOf(error)}); reconnecting.`;

/** Log line: a connection of the relay works again after an outage. */
export const redisConnectionBack = (role: string): string => `Transition relay's Redis ${role} connection is back.`;

/** Health: the relay was never started, or was stopped. */
export const redisNotStarted = (): string => 'not subscribed (not started, or stopped)';

/** Health: a connection of the relay is not ready (ioredis reconnects on its own). */
export const redisNotReady = (role: string, status: string): string => `Redis ${role} connection is ${status}`;
