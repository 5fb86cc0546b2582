import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { DataSource } from 'typeorm';
import { PostgresFsmTransitionRelay, TypeOrmFsmStateStore } from '../lib/stores/typeorm/index.js';
import { billingModule } from './fixtures/billing.app.js';
import { uniqueSuffix } from './utils/databases.js';
import { connectClient, eventually, mcpUrl, type TestClient } from './utils/http-client.js';
import { createStoreTables, dropStoreTables } from './utils/store-tables.js';

const url = process.env.TEST_POSTGRES_URL;
if (!url) {
  console.warn('transition relay e2e skipped: TEST_POSTGRES_URL is not set');
}
const describeWithPostgres = url ? describe : describe.skip;

describeWithPostgres('list_changed across two app instances through PostgreSQL LISTEN/NOTIFY', () => {
  const suffix = uniqueSuffix();
  const tables = { tableName: `relay_state_${suffix}`, historyTableName: `relay_history_${suffix}` };
  const channel = `relay_${suffix}`;
  let dataSources: DataSource[];
  let apps: INestApplication[];
  let clients: TestClient[];

  const startInstance = async () => {
    const dataSource = await new DataSource({ type: 'postgres', url }).initialize();
    dataSources.push(dataSource);
    const moduleRef = await Test.createTestingModule({
      imports: [
        billingModule({
          store: new TypeOrmFsmStateStore(dataSource, tables),
          transitionRelay: new PostgresFsmTransitionRelay(dataSource, { channel }),
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    apps.push(app);
    return mcpUrl(app);
  };
  const connect = async (at: URL) => {
    const client = await connectClient(at);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const setup = await new DataSource({ type: 'postgres', url }).initialize();
    await createStoreTables(setup, tables);
    await setup.destroy();
  });

  beforeEach(() => {
    dataSources = [];
    apps = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(apps.map((app) => app.close()));
    await Promise.all(dataSources.map((dataSource) => dataSource.destroy()));
  });

  afterAll(async () => {
    const teardown = await new DataSource({ type: 'postgres', url }).initialize();
    await dropStoreTables(teardown, tables);
    await teardown.destroy();
  });

  it('tells a session on instance A when a call on instance B moved its payment', async () => {
    const [urlA, urlB] = [await startInstance(), await startInstance()];
    const owner = await connect(urlA);
    const bystander = await connect(urlA);
    const started = await owner.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect(await owner.names()).toContain('payment.capture');
    await bystander.names();
    const before = owner.listChanged();

    const elsewhere = await connect(urlB);
    expect((await elsewhere.call('payment.capture', { paymentId })).isError).toBeFalsy();

    await eventually(() => owner.listChanged() === before + 1, 5000);
    expect(await owner.names()).toEqual(expect.arrayContaining(['payment.refund', 'payment.receipt']));
    expect(await owner.names()).not.toContain('payment.capture');
    expect(bystander.listChanged()).toBe(0);
  });
});
