import type { INestApplication } from '@nestjs/common';
import { DataSource, type DataSourceOptions, type EntitySchema } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { LedgerBehaviour, ledgerEntity, ledgerModule, type LedgerRow } from '../fixtures/ledger.app.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

describe.each(databaseTargets('transactional e2e'))('transactional mode on $name', ({ options }) => {
  const suffix = uniqueSuffix();
  const tables = {
    tableName: `tx_state_${suffix}`,
    historyTableName: `tx_history_${suffix}`,
    timerTableName: `tx_timer_${suffix}`,
    history: true,
  };
  let entity: EntitySchema<LedgerRow>;
  let dataSource: DataSource;
  let app: INestApplication;
  let agent: TestClient;
  let store: TypeOrmFsmStateStore;

  const ledgerOf = async (paymentId: string) =>
    (await dataSource.getRepository(entity).find({ where: { paymentId }, order: { id: 'ASC' } })).map((row) => row.kind);

  const authorize = async () => {
    const started = await agent.call('payment.authorize', { amount: 10, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };

  beforeAll(async () => {
    entity = ledgerEntity(`tx_ledger_${suffix}`);
    dataSource = new DataSource({ ...options(), entities: [entity] } as DataSourceOptions);
    await dataSource.initialize();
    await dataSource.synchronize();
    await createStoreTables(dataSource, tables);
    store = new TypeOrmFsmStateStore(dataSource, tables);
  });

  beforeEach(async () => {
    app = await listenApp([ledgerModule(dataSource, entity, tables)]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  afterAll(async () => {
    await dropStoreTables(dataSource, tables);
    await dataSource.query(`DROP TABLE ${entity.options.tableName}`);
    await dataSource.destroy();
  });

  it('commits the handler write and the transition together', async () => {
    const paymentId = await authorize();
    const captured = await agent.call('payment.capture', { paymentId });
    expect(captured.isError).toBeFalsy();
    expect(await ledgerOf(paymentId)).toEqual(['authorize', 'capture']);
    expect((await store.load(`payment:${paymentId}`))?.state).toBe('captured');
    expect((await store.history(`payment:${paymentId}`)).map((row) => [row.from, row.to, row.tool])).toEqual([
      [null, 'authorized', 'payment.authorize'],
      ['authorized', 'captured', 'payment.capture'],
    ]);
  });

  it('a handler that writes a row and then throws leaves neither the row nor a transition', async () => {
    const paymentId = await authorize();
    app.get(LedgerBehaviour).throwAfterWrite = true;
    const failed = await agent.call('payment.capture', { paymentId });
    expect(failed.isError).toBe(true);
    expect(await ledgerOf(paymentId)).toEqual(['authorize']);
    expect((await store.load(`payment:${paymentId}`))?.state).toBe('authorized');
    app.get(LedgerBehaviour).throwAfterWrite = false;
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(await ledgerOf(paymentId)).toEqual(['authorize', 'capture']);
  });

  it('a start tool that throws creates no instance and no row', async () => {
    const countStates = async () => Number((await dataSource.query(`SELECT COUNT(*) AS n FROM ${tables.tableName}`))[0].n);
    const [rowsBefore, statesBefore] = [await dataSource.getRepository(entity).count(), await countStates()];
    app.get(LedgerBehaviour).throwAfterWrite = true;
    const failed = await agent.call('payment.authorize', { amount: 10, currency: 'EUR' });
    expect(failed.isError).toBe(true);
    expect(failed.structuredContent).toBeUndefined();
    expect(await dataSource.getRepository(entity).count()).toBe(rowsBefore);
    expect(await countStates()).toBe(statesBefore);
  });

  it('runs one of 50 concurrent transactional captures on one handle', async () => {
    const paymentId = await authorize();
    const behaviour = app.get(LedgerBehaviour);
    behaviour.delayMs = 30;
    const before = behaviour.runs;
    const results = await Promise.all(Array.from({ length: 50 }, () => agent.call('payment.capture', { paymentId })));
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(behaviour.runs - before).toBe(1);
    expect(await ledgerOf(paymentId)).toEqual(['authorize', 'capture']);
    const codes = new Set(results.filter((r) => r.isError).map((r) => (r._meta?.['nestjs-mcp-fsm/error'] as { code: string }).code));
    expect([...codes].every((code) => code === 'BUSY' || code === 'FORBIDDEN')).toBe(true);
  });

  it('runs one of 50 concurrent lease-mode calls on one handle', async () => {
    const paymentId = await authorize();
    const behaviour = app.get(LedgerBehaviour);
    behaviour.delayMs = 30;
    const before = behaviour.runs;
    const results = await Promise.all(Array.from({ length: 50 }, () => agent.call('payment.void', { paymentId })));
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(behaviour.runs - before).toBe(1);
    expect((await store.load(`payment:${paymentId}`))?.state).toBe('voided');
  });
});
