import { LedgerBehaviour } from '../fixtures/ledger.app.js';
import { describeNetworkedTargets, uniqueSuffix } from '../utils/databases.js';
import { textOf } from '../utils/http-client.js';
import { startLedgerApp, type LedgerApp } from '../utils/ledger-app.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';

describeNetworkedTargets('database-down e2e')('when $name goes away', ({ url, options }) => {
  const suffix = uniqueSuffix();
  const tables = { tableName: `down_state_${suffix}`, historyTableName: `down_history_${suffix}` };
  let proxy: TcpProxy;
  let ledgerApp: LedgerApp;

  beforeAll(async () => {
    proxy = await startProxy(url!);
    ledgerApp = await startLedgerApp(options(proxy.rewrite(url!)), `down_ledger_${suffix}`, tables);
  });

  afterAll(async () => {
    await ledgerApp.close();
    await proxy.stop();
  });

  it('fails closed with STATE_UNAVAILABLE, then works again without a restart', async () => {
    const { agent, app } = ledgerApp;
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
