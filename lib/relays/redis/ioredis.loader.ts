import type { Redis } from 'ioredis';
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
export async function loadIoRedis(importer: () => Promise<IoRedisModule> = () => import('ioredis')): Promise<IoRedisModule | undefined> {
  try {
    return await importer();
  } catch (error) {
    if (isIoRedisNotFound(error)) {
      return undefined;
    }
    throw error;
  }
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

function isIoRedisNotFound(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  // Only the bare package name counts: a file missing inside an installed ioredis means a broken install.
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && typeof message === 'string' && /['"]ioredis['"]/.test(message);
}
