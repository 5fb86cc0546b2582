import type { INestApplication } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PostgresTransitionRelay, TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { billingModule } from '../fixtures/billing.app.js';
import { uniqueSuffix } from '../utils/databases.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { expectTransitionRelayed } from '../utils/relay-pair.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

const url = process.env.TEST_POSTGRES_URL;
if (!url) {
  console.warn('transition relay e2e skipped: TEST_POSTGRES_URL is not set');
}
const describeWithPostgres = url ? describe : describe.skip;

describeWithPostgres('list_changed across two app instances through PostgreSQL LISTEN/NOTIFY', () => {
  const suffix = uniqueSuffix();
  const tables = {
    tableName: `relay_state_${suffix}`,
    historyTableName: `relay_history_${suffix}`,
    timerTableName: `relay_timer_${suffix}`,
  };
  const channel = `relay_${suffix}`;
  let dataSources: DataSource[];

  beforeAll(async () => {
    const setup = await new DataSource({ type: 'postgres', url }).initialize();
    await createStoreTables(setup, tables);
    await setup.destroy();
  });

  beforeEach(() => {
    dataSources = [];
  });

  afterEach(async () => {
    await Promise.all(dataSources.map((dataSource) => dataSource.destroy()));
  });

  afterAll(async () => {
    const teardown = await new DataSource({ type: 'postgres', url }).initialize();
    await dropStoreTables(teardown, tables);
    await teardown.destroy();
  });

  it('tells a session on instance A when a call on instance B moved its payment', async () => {
    await expectTransitionRelayed(async () => {
      const dataSource = await new DataSource({ type: 'postgres', url }).initialize();
      dataSources.push(dataSource);
      return {
        store: new TypeOrmFsmStateStore(dataSource, tables),
        transitionRelay: new PostgresTransitionRelay(dataSource, { channel }),
      };
    });
  });
  it('brings the menus of its sessions up to date once it listens again, with what it missed meanwhile', async () => {
    const apps: INestApplication[] = [];
    const clients: TestClient[] = [];
    const start = async (applicationName: string) => {
      const dataSource = await new DataSource({ type: 'postgres', url, applicationName }).initialize();
      dataSources.push(dataSource);
      const relay = new PostgresTransitionRelay(dataSource, { channel, reconnectMs: 1500 });
      const app = await listenApp([billingModule({ store: new TypeOrmFsmStateStore(dataSource, tables), transitionRelay: relay })]);
      apps.push(app);
      const client = await connectClient(await mcpUrl(app));
      clients.push(client);
      return { client, dataSource };
    };
    try {
      const { client: elsewhere } = await start(`relay_a_${suffix}`);
      const { client: owner, dataSource } = await start(`relay_b_${suffix}`);
      const started = await owner.call('payment.authorize', { amount: 5, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };
      expect(await owner.names()).toContain('payment.capture');

      // The listening connection of B drops; B listens again 1.5 s later, and misses what is sent meanwhile.
      const [{ terminated }] = await dataSource.query(
        `SELECT COUNT(pg_terminate_backend(pid)) AS terminated FROM pg_stat_activity WHERE application_name = $1 AND (query LIKE 'LISTEN%' OR query LIKE 'SELECT pg_notify%')`,
        [`relay_b_${suffix}`],
      );
      expect(Number(terminated)).toBe(1);
      const before = owner.listChanged();
      expect((await elsewhere.call('payment.capture', { paymentId })).isError).toBeFalsy();

      await eventually(() => owner.listChanged() === before + 1, 10_000);
      const names = await owner.names();
      expect(names).toContain('payment.refund');
      expect(names).not.toContain('payment.capture');
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await Promise.all(apps.map((app) => app.close()));
    }
  });
});
