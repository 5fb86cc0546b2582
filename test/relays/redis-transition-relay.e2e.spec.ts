import type { INestApplication } from '@nestjs/common';
import { Redis } from 'ioredis';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { RedisTransitionRelay } from '../../lib/redis.js';
import { redisConnectionBack, redisConnectionLost } from '../../lib/relays/redis/redis.messages.js';
import { relayBadPayload } from '../../lib/stores/stores.messages.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { billingModule } from '../fixtures/billing.app.js';
import { uniqueSuffix } from '../utils/databases.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { expectTransitionRelayed } from '../utils/relay-pair.js';
import { expectEachHearsTheOther, paymentTransition as transition, RelayTestBed } from '../utils/relay-test-bed.js';
import { createStoreTables } from '../utils/store-tables.js';
import { startProxy } from '../utils/tcp-proxy.js';
import { listenApp } from '../utils/test-app.js';

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
    bed.receiver(new RedisTransitionRelay(connection, { channel: relayChannel }));
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
    const tables = { tableName: 'redis_state', historyTableName: 'redis_history', timerTableName: 'redis_timer' };
    const instance = (connection: Redis | string) => async () => {
      const dataSource = await new DataSource({ type: 'better-sqlite3', database, enableWAL: true }).initialize();
      bed.dataSources.push(dataSource);
      if (bed.dataSources.length === 1) await createStoreTables(dataSource, tables);
      return {
        store: new TypeOrmFsmStateStore(dataSource, tables),
        transitionRelay: new RedisTransitionRelay(connection, { channel }),
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
      expect(bed.logs.matching('warn', /subscriber/)[0]).toMatch(
        /^Transition relay lost its Redis subscriber connection \(.+\); reconnecting\.$/,
      );

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
  it('logs the publishes that fail while Redis is away once per interval, with their count', async () => {
    const proxy = await startProxy(url!, 6379);
    try {
      // No retries per command: a publish fails at the next failed reconnection, not 20 later.
      const client = new Redis(proxy.rewrite(url!), { maxRetriesPerRequest: 0 });
      redisClients.push(client);
      const b = await bed.receiver(new RedisTransitionRelay(client, { channel, warnIntervalMs: 1500 }));
      await proxy.stop();
      await eventually(() => client.status !== 'ready');
      for (let i = 0; i < 40; i += 1) b.relay.publish(transition(`payment:down-${i}`));

      await eventually(() => bed.logs.matching('warn', /^Could not relay 39 more/).length === 1, 8000);
      const failures = bed.logs.matching('warn', /^Could not relay/);
      expect(failures).toHaveLength(2);
      expect(failures[0]).toMatch(/^Could not relay a transition to the other instances: .+/);
      expect(failures[1]).toMatch(/^Could not relay 39 more transitions to the other instances in the last 1500 ms \(the last: .+\)\.$/);
      await new Promise((resolve) => setTimeout(resolve, 1700));
      expect(bed.logs.matching('warn', /^Could not relay/)).toHaveLength(2);
    } finally {
      await bed.close();
      await proxy.stop();
    }
  });

  it('brings the menus of its sessions up to date once Redis is back, with what it missed meanwhile', async () => {
    const proxy = await startProxy(url!, 6379);
    const database = join(mkdtempSync(join(tmpdir(), 'mcp-fsm-redis-')), 'state.sqlite');
    const tables = { tableName: 'resync_state', historyTableName: 'resync_history', timerTableName: 'resync_timer' };
    const apps: INestApplication[] = [];
    const clients: TestClient[] = [];
    const start = async (connection: Redis) => {
      const dataSource = await new DataSource({ type: 'better-sqlite3', database, enableWAL: true }).initialize();
      bed.dataSources.push(dataSource);
      if (bed.dataSources.length === 1) await createStoreTables(dataSource, tables);
      const store = new TypeOrmFsmStateStore(dataSource, tables);
      const app = await listenApp([billingModule({ store, transitionRelay: new RedisTransitionRelay(connection, { channel }) })]);
      apps.push(app);
      const client = await connectClient(await mcpUrl(app));
      clients.push(client);
      return client;
    };
    try {
      const elsewhere = await start(redis());
      const behindProxy = redis(proxy.rewrite(url!));
      const owner = await start(behindProxy);
      const started = await owner.call('payment.authorize', { amount: 5, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };
      expect(await owner.names()).toContain('payment.capture');

      await proxy.stop();
      await eventually(() => behindProxy.status !== 'ready');
      expect((await elsewhere.call('payment.capture', { paymentId })).isError).toBeFalsy();
      const before = owner.listChanged();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(owner.listChanged()).toBe(before);

      await proxy.start();
      await eventually(() => owner.listChanged() === before + 1, 10_000);
      const names = await owner.names();
      expect(names).toContain('payment.refund');
      expect(names).not.toContain('payment.capture');
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await Promise.all(apps.map((app) => app.close()));
      await bed.close();
      await proxy.stop();
    }
  });
});
