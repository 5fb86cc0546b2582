import type { INestApplication } from '@nestjs/common';
import { DataSource, type DataSourceOptions, type EntitySchema } from 'typeorm';
import { LedgerBehaviour, ledgerEntity, ledgerModule, type LedgerRow } from './fixtures/ledger.app.js';
import { databaseTargets, uniqueSuffix } from './utils/databases.js';
import { createStoreTables, dropStoreTables } from './utils/store-tables.js';
import { connectClient, mcpUrl, textOf, type TestClient } from './utils/http-client.js';
import { TcpProxy } from './utils/tcp-proxy.js';
import { listenApp } from './utils/test-app.js';

const targets = databaseTargets('database-down e2e', { networkedOnly: true });
const describeTargets = targets.length ? describe.each(targets) : describe.skip.each([{ name: 'no server', url: '' }]);

describeTargets('when $name goes away', ({ url, ...target }) => {
  const suffix = uniqueSuffix();
  const tables = { tableName: `down_state_${suffix}`, historyTableName: `down_history_${suffix}` };
  let proxy: TcpProxy;
  let entity: EntitySchema<LedgerRow>;
  let dataSource: DataSource;
  let app: INestApplication;
  let agent: TestClient;

  beforeAll(async () => {
    const server = new URL(url!);
    proxy = new TcpProxy(server.hostname, Number(server.port));
    await proxy.start();
    entity = ledgerEntity(`down_ledger_${suffix}`);
    const options = (target as { options: (url?: string) => DataSourceOptions }).options(proxy.rewrite(url!));
    dataSource = new DataSource({ ...options, entities: [entity] } as DataSourceOptions);
    await dataSource.initialize();
    await dataSource.synchronize();
    await createStoreTables(dataSource, tables);
    app = await listenApp([ledgerModule(dataSource, entity, tables)]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterAll(async () => {
    await agent.close();
    await app.close();
    await dropStoreTables(dataSource, tables);
    await dataSource.query(`DROP TABLE ${entity.options.tableName}`);
    await dataSource.destroy();
    await proxy.stop();
  });

  it('fails closed with STATE_UNAVAILABLE, then works again without a restart', async () => {
    const started = await agent.call('payment.authorize', { amount: 7, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const behaviour = app.get(LedgerBehaviour);
    const runsBefore = behaviour.runs;

    await proxy.stop();
    for (const tool of ['payment.void', 'payment.capture']) {
      const refused = await agent.call(tool, { paymentId });
      expect(refused.isError).toBe(true);
      expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE', tool });
      expect(textOf(refused)).toBe(`STATE_UNAVAILABLE: the state of payment could not be read, so "${tool}" did not run. Try again later.`);
    }
    expect(behaviour.runs).toBe(runsBefore);
    await expect(agent.names()).rejects.toThrow(/STATE_UNAVAILABLE/);

    await proxy.start();
    expect(await agent.names()).toEqual(['payment.authorize', 'payment.capture', 'payment.void']);
    const captured = await agent.call('payment.capture', { paymentId });
    expect(captured.isError).toBeFalsy();
    expect(captured._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'captured' });
    expect(await agent.names()).toEqual(['payment.authorize']);
  });
});
