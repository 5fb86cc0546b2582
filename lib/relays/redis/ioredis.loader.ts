import type { Redis } from 'ioredis';
import { importOptionalPeer } from '../../peers/optional-peer.loader.js';
import { redisClientMissing } from './redis.messages.js';

/** The part of the `ioredis` module (an optional peer) the relay uses: its client class. */
export type IoRedisModule = Pick<typeof import('ioredis'), 'Redis'>;

/**
 * Imports the optional `ioredis` peer.
 *
 * @param importer how to import it; tests pass one that fails.
 * @returns the module, or `undefined` when `ioredis` is not installed. Any other failure
 *   (a broken install) is rethrown.
 */
export function loadIoRedis(importer: () => Promise<IoRedisModule> = () => import('ioredis')): Promise<IoRedisModule | undefined> {
  return importOptionalPeer(['ioredis'], importer);
}

/**
 * Opens an ioredis client on `url`; throws a clear error when the optional peer `ioredis`
 * is not installed.
 *
 * @param importer how to import `ioredis`; tests pass one that fails.
 */
export async function createRedisClient(url: string, importer?: () => Promise<IoRedisModule>): Promise<Redis> {
  const ioredis = await loadIoRedis(importer);
  if (!ioredis) {
    throw new Error(redisClientMissing());
  }
  return new ioredis.Redis(url);
}
