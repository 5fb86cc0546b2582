import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { uniqueSuffix } from '../utils/databases.js';
import { connectClient, eventually, type TestClient } from '../utils/http-client.js';
import { migrateOutbox } from '../utils/outbox-table.js';
import { startServerProcess, type SampleProcess } from '../utils/sample-process.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';

const SERVER = join(process.cwd(), 'test', 'fixtures', 'state-cache.server.mjs');

/** A database two server processes share, with the relay that carries their transitions. */
interface Target {
  name: string;
  relay: 'notify' | 'outbox';
  env: Record<string, string>;
  options: DataSourceOptions;
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-state-cache-'));
const targets: Target[] = [];
if (process.env.TEST_POSTGRES_URL) {
  const url = process.env.TEST_POSTGRES_URL;
  targets.push({
    name: 'PostgreSQL, LISTEN/NOTIFY',
    relay: 'notify',
    env: { DB_TYPE: 'postgres', DB_URL: url },
    options: { type: 'postgres', url },
  });
} else {
  console.warn('menus from memory across processes on PostgreSQL skipped: TEST_POSTGRES_URL is not set');
}
if (process.env.TEST_MYSQL_URL) {
  const url = process.env.TEST_MYSQL_URL;
  targets.push({
    name: 'MariaDB, the polled outbox',
    relay: 'outbox',
    env: { DB_TYPE: 'mysql', DB_URL: url },
    options: { type: 'mysql', url },
  });
} else {
  console.warn('menus from memory across processes on MariaDB skipped: TEST_MYSQL_URL is not set');
}
const file = join(dir, 'shared.sqlite');
targets.push({
  name: 'SQLite, the polled outbox',
  relay: 'outbox',
  env: { DB_TYPE: 'better-sqlite3', DB_FILE: file },
  options: { type: 'better-sqlite3', database: file, enableWAL: true },
});

describe.each(targets)('menus from memory across two processes on $name', ({ relay, env, options }) => {
  const suffix = `scr_${uniqueSuffix()}`;
  const tables = { tableName: `mcp_state_${suffix}`, historyTableName: `mcp_history_${suffix}` };
  const relayName = `relay_${suffix}`;
  let dataSource: DataSource;
  let servers: SampleProcess[];
  let clients: TestClient[];

  const start = (name: string, extra: Record<string, string> = {}) =>
    startServerProcess(SERVER, {
      ...env,
      STATE_TABLE: tables.tableName,
      HISTORY_TABLE: tables.historyTableName,
      RELAY: relay,
      RELAY_NAME: relayName,
      APP_NAME: `${name}_${suffix}`,
      STATE_CACHE: 'on',
      ...extra,
    }).then((server) => (servers.push(server), server));
  const connect = async (server: SampleProcess) => {
    const client = await connectClient(server.url);
    clients.push(client);
    return client;
  };
  const authorize = async (client: TestClient) =>
    ((await client.call('payment.authorize', {})).structuredContent as { paymentId: string }).paymentId;

  beforeAll(async () => {
    dataSource = await new DataSource(options).initialize();
    await createStoreTables(dataSource, tables);
    if (relay === 'outbox') await migrateOutbox(dataSource, relayName, 'up');
  });

  beforeEach(() => {
    servers = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(servers.map((server) => server.stop()));
  });

  afterAll(async () => {
    if (relay === 'outbox') await migrateOutbox(dataSource, relayName, 'down');
    await dropStoreTables(dataSource, tables);
    await dataSource.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it("shows the other process's transition in every session's list once the relay delivered it, also to a session it did not notify", async () => {
    // One follower per instance is told: the second session on A follows the payment without being notified.
    const a = await start('a', { MAX_FOLLOWERS: '1' });
    const b = await start('b');
    const owner = await connect(a);
    const watcher = await connect(a);
    const elsewhere = await connect(b);
    const paymentId = await authorize(owner);
    expect((await watcher.call('payment.status', { paymentId })).isError).toBeFalsy();
    for (const client of [owner, watcher]) expect(await client.names()).toContain('payment.capture');
    const [told, watcherTold] = [owner.listChanged(), watcher.listChanged()];

    expect((await elsewhere.call('payment.capture', { paymentId })).isError).toBeFalsy();
    // Delivered: the relay told process A, which told the session it notifies.
    await eventually(() => owner.listChanged() > told, 5000);
    for (let i = 0; i < 3; i++) {
      for (const client of [owner, watcher]) {
        const names = await client.names();
        expect(names).toContain('payment.refund');
        expect(names).not.toContain('payment.capture');
      }
    }
    expect(watcher.listChanged()).toBe(watcherTold);
  });

  it('lists what the relay delivered even where no session was told of it (no follower is notified), and never the old state after', async () => {
    const a = await start('a', { MAX_FOLLOWERS: '0' });
    const b = await start('b');
    const [onA, onB] = [await connect(a), await connect(b)];
    const paymentId = await authorize(onA);
    expect(await onA.names()).toContain('payment.capture');
    expect((await onB.call('payment.capture', { paymentId })).isError).toBeFalsy();
    // Nothing tells this client; its lists change once the relay delivered the capture to A (kept states live 10 minutes).
    await eventually(async () => (await onA.names()).includes('payment.refund'), 5000);
    for (let i = 0; i < 5; i++) expect(await onA.names()).not.toContain('payment.capture');
  });

  it('reads nothing again for transitions it made itself, and keeps both processes right as the payment moves on either', async () => {
    const [a, b] = [await start('a'), await start('b')];
    const [onA, onB] = [await connect(a), await connect(b)];
    const paymentId = await authorize(onA);
    expect((await onB.call('payment.status', { paymentId })).isError).toBeFalsy();
    const toldB = onB.listChanged();
    expect((await onA.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(await onA.names()).toContain('payment.refund');
    await eventually(() => onB.listChanged() > toldB, 5000);
    expect(await onB.names()).toContain('payment.refund');
    const toldA = onA.listChanged();
    expect((await onB.call('payment.refund', { paymentId })).isError).toBeFalsy();
    expect(await onB.names()).not.toContain('payment.refund');
    await eventually(() => onA.listChanged() > toldA, 5000);
    expect(await onA.names()).not.toContain('payment.refund');
  });

  if (relay === 'notify') {
    it('reads every state again when its relay listens again after an outage, so what it missed shows', async () => {
      const a = await start('a');
      const b = await start('b');
      const owner = await connect(a);
      const elsewhere = await connect(b);
      const paymentId = await authorize(owner);
      expect(await owner.names()).toContain('payment.capture');
      // A's listening connection drops; it listens again a second later and misses what is sent meanwhile.
      const [{ terminated }] = await dataSource.query(
        `SELECT COUNT(pg_terminate_backend(pid)) AS terminated FROM pg_stat_activity WHERE application_name = $1 AND (query LIKE 'LISTEN%' OR query LIKE 'SELECT pg_notify%')`,
        [`a_${suffix}`],
      );
      expect(Number(terminated)).toBe(1);
      const told = owner.listChanged();
      expect((await elsewhere.call('payment.capture', { paymentId })).isError).toBeFalsy();
      await eventually(() => owner.listChanged() > told, 10_000);
      const names = await owner.names();
      expect(names).toContain('payment.refund');
      expect(names).not.toContain('payment.capture');
    });
  }
});
