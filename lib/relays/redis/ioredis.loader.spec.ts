import { createRedisClient, type IoRedisModule, loadIoRedis } from './ioredis.loader.js';
import { redisClientMissing } from './redis.messages.js';

const failWith = (code: string, message: string) => async (): Promise<IoRedisModule> => {
  throw Object.assign(new Error(message), { code });
};

describe('loadIoRedis', () => {
  it('imports the installed ioredis', async () => {
    const loaded = await loadIoRedis();
    expect(typeof loaded?.Redis).toBe('function');
  });

  it('resolves undefined when ioredis is not installed (ESM and CJS wording)', async () => {
    await expect(
      loadIoRedis(failWith('ERR_MODULE_NOT_FOUND', "Cannot find package 'ioredis' imported from /app/dist/redis/ioredis.loader.js")),
    ).resolves.toBeUndefined();
    await expect(loadIoRedis(failWith('MODULE_NOT_FOUND', "Cannot find module 'ioredis'"))).resolves.toBeUndefined();
  });

  it('rethrows a missing file inside an installed ioredis, and any other failure', async () => {
    const broken = failWith('ERR_MODULE_NOT_FOUND', "Cannot find module '/app/node_modules/ioredis/built/Redis.js'");
    await expect(loadIoRedis(broken)).rejects.toThrow('built/Redis.js');
    await expect(loadIoRedis(failWith('ERR_REQUIRE_ESM', "Cannot load 'ioredis'"))).rejects.toThrow("Cannot load 'ioredis'");
  });
});

describe('createRedisClient', () => {
  it('says how to install ioredis when it is missing', async () => {
    await expect(
      createRedisClient('redis://127.0.0.1:6379', failWith('ERR_MODULE_NOT_FOUND', "Cannot find package 'ioredis'")),
    ).rejects.toThrow(redisClientMissing());
    expect(redisClientMissing()).toBe(
      'RedisTransitionRelay needs the optional peer dependency "ioredis" to connect to a URL: npm install ioredis (or pass an ioredis client).',
    );
  });

  it('opens a client of the installed ioredis on the URL', async () => {
    const client = await createRedisClient('redis://127.0.0.1:1/3?lazyConnect=true');
    expect(client.options).toMatchObject({ host: '127.0.0.1', port: 1, db: 3 });
    expect(client.status).toBe('wait');
    client.disconnect();
  });
});
