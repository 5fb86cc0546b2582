import { DataSource } from 'typeorm';
import { PostgresFsmTransitionRelay, TypeOrmFsmStateStore } from '../lib/stores/typeorm/index.js';
import { uniqueSuffix } from './utils/databases.js';
import { expectTransitionRelayed } from './utils/relay-pair.js';
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
        transitionRelay: new PostgresFsmTransitionRelay(dataSource, { channel }),
      };
    });
  });
});
