import type { INestApplication } from '@nestjs/common';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { fulfilmentModule } from '../fixtures/fulfilment.app.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { connectClient, eventually, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

const [sqlite] = databaseTargets('parallel states');

describe.each([
  ['the in-memory store', false],
  ['TypeOrmFsmStateStore on SQLite', true],
] as const)('parallel states on %s', (_name, onSqlite) => {
  const tables = { tableName: `mcp_state_par_${uniqueSuffix()}`, historyTableName: `mcp_history_par_${uniqueSuffix()}` };
  let dataSource: DataSource | undefined;
  let app: INestApplication;
  let agent: TestClient;

  beforeAll(async () => {
    if (onSqlite) {
      dataSource = await new DataSource(sqlite.options() as DataSourceOptions).initialize();
      await createStoreTables(dataSource, tables);
    }
  });

  afterAll(async () => {
    if (dataSource) {
      await dropStoreTables(dataSource, tables);
      await dataSource.destroy();
    }
  });

  beforeEach(async () => {
    app = await listenApp([fulfilmentModule(dataSource ? { store: new TypeOrmFsmStateStore(dataSource, tables) } : {})]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('lists and gates each region by the snapshot, stores both regions, and guards the close on both', async () => {
    expect(await agent.names()).toEqual(['fulfilment.ship', 'fulfilment.pay', 'fulfilment.close']);
    const early = await agent.call('fulfilment.track');
    expect(early._meta?.['nestjs-mcp-fsm/error']).toMatchObject({
      code: 'FORBIDDEN',
      state: { open: { shipping: 'packing', billing: 'unpaid' } },
    });

    const shipped = await agent.call('fulfilment.ship');
    const both = { open: { shipping: 'shipped', billing: 'unpaid' } };
    expect(shipped._meta?.['nestjs-mcp-fsm/state']).toEqual({
      machine: 'fulfilment',
      state: both,
      allowedTools: ['fulfilment.pay', 'fulfilment.track', 'fulfilment.close'],
    });
    await eventually(() => agent.listChanged() === 1);
    expect(await agent.names()).toEqual(['fulfilment.pay', 'fulfilment.track', 'fulfilment.close']);
    expect((await agent.call('fulfilment.track')).structuredContent).toEqual({ state: both });
    if (dataSource) {
      const stored = await new TypeOrmFsmStateStore(dataSource, tables).load(`fulfilment:session:${agent.transport.sessionId}`);
      expect(stored?.state).toBe(JSON.stringify(both));
    }

    const tooEarly = await agent.call('fulfilment.close');
    expect(tooEarly._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'GUARD_REJECTED', state: both });
    expect(textOf(tooEarly)).toContain(
      'its guard "stateIn({"open":{"shipping":"shipped","billing":"paid"}})" does not allow event "CLOSE"',
    );

    await agent.call('fulfilment.pay');
    expect(await agent.names()).toEqual(['fulfilment.track', 'fulfilment.close']);
    const closed = await agent.call('fulfilment.close');
    expect(closed._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'closed' });
    expect(await agent.names()).toEqual([]);
  });
});
