import { Redis } from 'ioredis';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { RedisFsmTransitionRelay } from '../lib/redis/index.js';
import { redisConnectionBack, redisConnectionLost } from '../lib/redis/redis.messages.js';
import { relayBadPayload } from '../lib/stores/stores.messages.js';
import { TypeOrmFsmStateStore } from '../lib/stores/typeorm/index.js';
import { uniqueSuffix } from './utils/databases.js';
import { eventually } from './utils/http-client.js';
import { expectTransitionRelayed } from './utils/relay-pair.js';
import { expectEachHearsTheOther, paymentTransition as transition, RelayTestBed } from './utils/relay-test-bed.js';
import { createStoreTables } from './utils/store-tables.js';
import { startProxy } from './utils/tcp-proxy.js';

const url = process.env.TEST_REDIS_URL;
if (!url) {
  console.warn('Redis transition relay e2e skipped: TEST_REDIS_URL is not set');
}
const describeWithRedis = url ? describe : describe.skip;

/** `url` with ioredis options in its query (`connectionName` shows in CLIENT LIST). */
const withOptions = (base: string, options: Record<string, string>) => {
  const parsed = new URL(base);
  for (const [key, value] of Object.entries(options)) parsed.searchParams.set(key, value);
  return parsed.toString();
};

describeWithRedis('transitions across processes through Redis pub/sub', () => {
  const suffix = uniqueSuffix();
  const channel = `nestjs-mcp-fsm-test:${suffix}`;
  let redisClients: Redis[];
  let bed: RelayTestBed;

  const redis = (at = url!) => {
    const client = new Redis(at);
    redisClients.push(client);
    return client;
  };
  const receiver = (connection: Redis | string, relayChannel = channel) =>
    bed.receiver(new RedisFsmTransitionRelay(connection, { channel: relayChannel }));
  const connectionsNamed = async (name: string) => {
    const list = await redis().client('LIST');
    return String(list)
      .split('\n')
      .filter((line) => line.includes(` name=${name} `)).length;
  };

  beforeEach(() => {
    redisClients = [];
    bed = new RelayTestBed();
  });

  afterEach(async () => {
    await bed.close();
    for (const client of redisClients) client.disconnect();
  });

  it('tells a session on instance A when a call on instance B moved its payment', async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'mcp-fsm-redis-')), 'state.sqlite');
    const tables = { tableName: 'redis_state', historyTableName: 'redis_history' };
    const instance = (connection: Redis | string) => async () => {
      const dataSource = await new DataSource({ type: 'better-sqlite3', database, enableWAL: true }).initialize();
      bed.dataSources.push(dataSource);
      if (bed.dataSources.length === 1) await createStoreTables(dataSource, tables);
      return {
        store: new TypeOrmFsmStateStore(dataSource, tables),
        transitionRelay: new RedisFsmTransitionRelay(connection, { channel }),
      };
    };
    await expectTransitionRelayed(instance(redis()), instance(url!));
  });

  it('hands each relay the transitions of the others on its channel only', async () => {
    const a = await receiver(redis());
    const b = await receiver(url!);
    const elsewhere = await receiver(url!, `${channel}:other`);

    await expectEachHearsTheOther(a, b);

    elsewhere.relay.publish(transition('payment:3'));
    a.relay.publish(transition('payment:4'));
    await eventually(() => b.received.length === 2);
    expect(b.received).toEqual([transition('payment:1'), transition('payment:4')]);
    expect(elsewhere.received).toEqual([]);
    expect(a.received).toEqual([transition('payment:2', null)]);
  });

  it('ignores, and logs, messages on its channel that are not transitions', async () => {
    const b = await receiver(url!);
    const plain = redis();
    await plain.publish(channel, 'not json');
    await plain.publish(channel, JSON.stringify({ origin: 'x', machine: 'payment', storeKey: 7, state: 'captured' }));
    await plain.publish(channel, JSON.stringify({ origin: 'x', ...transition('payment:5') }));
    await eventually(() => b.received.length === 1);
    expect(b.received).toEqual([transition('payment:5')]);
    expect(bed.logs.matching('warn', /^Ignored a transition relay message: /)).toEqual([
      relayBadPayload(new SyntaxError(`Unexpected token 'o', "not json" is not valid JSON`)),
    ]);
  });

  it('closes the connections it opened, and only its own subscriber on a client it was given', async () => {
    const own = `relay_own_${suffix}`;
    const given = `relay_given_${suffix}`;
    const userClient = redis(withOptions(url!, { connectionName: given }));
    const fromClient = await receiver(userClient);
    const fromUrl = await receiver(withOptions(url!, { connectionName: own }));
    expect(await connectionsNamed(given)).toBe(2);
    expect(await connectionsNamed(own)).toBe(2);

    await fromClient.relay.stop();
    await fromUrl.relay.stop();
    await eventually(async () => (await connectionsNamed(own)) === 0 && (await connectionsNamed(given)) === 1);
    expect(userClient.status).toBe('ready');
    expect(await userClient.ping()).toBe('PONG');
  });

  it('keeps running while Redis is away, logs it once, and delivers again once it is back', async () => {
    const proxy = await startProxy(url!, 6379);
    try {
      const a = await receiver(redis());
      const b = await receiver(proxy.rewrite(url!));
      a.relay.publish(transition('payment:before'));
      await eventually(() => b.received.length === 1);

      await proxy.stop();
      await eventually(() => bed.logs.matching('warn', /subscriber/).length === 1, 5000);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(bed.logs.matching('warn', /subscriber/)).toHaveLength(1);
      expect(bed.logs.matching('warn', /subscriber/)[0]).toMatch(/^Transition relay lost its Redis subscriber connection \(.+\); reconnecting\.$/);

      await proxy.start();
      await eventually(() => {
        a.relay.publish(transition('payment:after'));
        return b.received.some((relayed) => relayed.storeKey === 'payment:after');
      }, 10_000);
      await eventually(() => bed.logs.matching('log', /subscriber/).length === 1);
      expect(bed.logs.matching('log', /subscriber/)).toEqual([redisConnectionBack('subscriber')]);
      expect(redisConnectionLost('subscriber', new Error('ECONNREFUSED'))).toBe(
        'Transition relay lost its Redis subscriber connection (ECONNREFUSED); reconnecting.',
      );
    } finally {
      await bed.close();
      await proxy.stop();
    }
  });
});
