import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { LedgerBehaviour } from '../fixtures/ledger.app.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { textOf } from '../utils/http-client.js';
import { startLedgerApp, type LedgerApp } from '../utils/ledger-app.js';

const TIMEOUT_MS = 500;

describe.each(databaseTargets('store timeout e2e'))('a transactional handler that outlives timeoutMs on $name', ({ options }) => {
  const suffix = uniqueSuffix();
  const tables = { tableName: `slow_state_${suffix}`, historyTableName: `slow_history_${suffix}`, history: true };
  let ledgerApp: LedgerApp;

  beforeAll(async () => {
    ledgerApp = await startLedgerApp(options(), `slow_ledger_${suffix}`, { ...tables, timeoutMs: TIMEOUT_MS });
  });

  afterAll(() => ledgerApp.close());

  it('is answered STATE_UNAVAILABLE, acknowledges nothing, and the next call commits', async () => {
    const { agent, app, dataSource, entity } = ledgerApp;
    const started = await agent.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const behaviour = app.get(LedgerBehaviour);
    const store = new TypeOrmFsmStateStore(dataSource, tables);
    const ledger = async () =>
      (await dataSource.getRepository(entity).find({ where: { paymentId }, order: { id: 'ASC' } })).map((row) => row.kind);

    behaviour.delayMs = TIMEOUT_MS + 300;
    const late = await agent.call('payment.capture', { paymentId });
    expect(late._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE', tool: 'payment.capture' });
    expect(textOf(late)).toBe(
      'STATE_UNAVAILABLE: "payment.capture" ran, but the new state of payment could not be stored. Check its status before retrying.',
    );
    expect(await ledger()).toEqual(['authorize']);
    expect((await store.load(`payment:${paymentId}`))?.state).toBe('authorized');

    behaviour.delayMs = 0;
    const captured = await agent.call('payment.capture', { paymentId });
    expect(captured.isError).toBeFalsy();
    expect(await ledger()).toEqual(['authorize', 'capture']);
    expect((await store.history(`payment:${paymentId}`)).map((row) => row.to)).toEqual(['authorized', 'captured']);
  });
});
