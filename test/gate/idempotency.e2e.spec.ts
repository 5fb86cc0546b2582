import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { LedgerBehaviour } from '../fixtures/ledger.app.js';
import { createWorkflowReceiptMigration } from '../../lib/typeorm.js';
import { databaseTargets, uniqueSuffix, type DatabaseTarget } from '../utils/databases.js';
import { internalErrorText, textOf, type TestClient } from '../utils/http-client.js';
import { startLedgerApp, type LedgerApp } from '../utils/ledger-app.js';

const KEY = 'nestjs-mcp-fsm/idempotency-key';

/** `tools/call` of `name` with `args` and the idempotency key `key`. */
const keyed = (agent: TestClient, name: string, args: Record<string, unknown>, key: string) =>
  agent.client.callTool({ name, arguments: args, _meta: { [KEY]: key } }) as Promise<CallToolResult>;

const paymentIdOf = (result: CallToolResult) => (result.structuredContent as { paymentId: string }).paymentId;

describe.each(databaseTargets('keyed calls through the gate'))('keyed calls on the TypeORM store ($name)', (target: DatabaseTarget) => {
  const suffix = uniqueSuffix();
  const tables = { tableName: `key_state_${suffix}`, historyTableName: `key_history_${suffix}`, receiptTableName: `key_receipt_${suffix}` };
  let ledger: LedgerApp;
  let behaviour: LedgerBehaviour;

  beforeAll(async () => {
    ledger = await startLedgerApp(target.options(), `key_ledger_${suffix}`, tables);
    behaviour = ledger.app.get(LedgerBehaviour);
  }, 60_000);

  afterAll(() => ledger.close(), 60_000);

  const ledgerRows = async (paymentId: string) =>
    (await ledger.dataSource.getRepository(ledger.entity).find({ where: { paymentId } })).map((row) => row.kind);

  it('starts once: a repeated keyed start answers the first handle, with one ledger row and one instance', async () => {
    const first = await keyed(ledger.agent, 'payment.authorize', { amount: 12, currency: 'EUR' }, 'start-1');
    const runs = behaviour.runs;
    const again = await keyed(ledger.agent, 'payment.authorize', { amount: 12, currency: 'EUR' }, 'start-1');
    expect(again).toEqual(first);
    expect(behaviour.runs).toBe(runs);
    expect(await ledgerRows(paymentIdOf(first))).toEqual(['authorize']);
    expect(behaviour.keys.at(-1)).toBe('start-1');
  });

  it('runs a keyed transition once in lease mode; its handler reads the key', async () => {
    const paymentId = paymentIdOf(await ledger.agent.call('payment.authorize', { amount: 5, currency: 'EUR' }));
    const runs = behaviour.runs;
    const voided = await keyed(ledger.agent, 'payment.void', { paymentId }, 'void-1');
    expect(voided._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'voided' });
    expect(await keyed(ledger.agent, 'payment.void', { paymentId }, 'void-1')).toEqual(voided);
    expect(behaviour.runs).toBe(runs + 1);
    expect(behaviour.keys.at(-1)).toBe('void-1');
  });

  it('stores nothing for a refused keyed call: the key then runs another call', async () => {
    const voided = paymentIdOf(await ledger.agent.call('payment.authorize', { amount: 5, currency: 'EUR' }));
    await ledger.agent.call('payment.void', { paymentId: voided });
    const refused = await keyed(ledger.agent, 'payment.capture', { paymentId: voided }, 'capture-1');
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN' });
    const other = paymentIdOf(await ledger.agent.call('payment.authorize', { amount: 5, currency: 'EUR' }));
    const captured = await keyed(ledger.agent, 'payment.capture', { paymentId: other }, 'capture-1');
    expect(captured.isError).toBeFalsy();
    expect(await ledgerRows(other)).toEqual(['authorize', 'capture']);
    const reused = await keyed(ledger.agent, 'payment.capture', { paymentId: voided }, 'capture-1');
    expect(reused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('fails a keyed workflow call, running nothing, naming the migration, when the receipt table was never made; unkeyed calls go on', async () => {
    const bare = {
      tableName: `key_bare_${suffix}`,
      historyTableName: `key_bare_history_${suffix}`,
      receiptTableName: `key_bare_receipt_${suffix}`,
    };
    const app = await startLedgerApp(target.options(), `key_bare_ledger_${suffix}`, bare);
    const runner = app.dataSource.createQueryRunner();
    const migration = new (createWorkflowReceiptMigration(bare))();
    try {
      await migration.down(runner);
      const runs = app.app.get(LedgerBehaviour).runs;
      const paymentId = paymentIdOf(await app.agent.call('payment.authorize', { amount: 5, currency: 'EUR' }));
      const failed = await keyed(app.agent, 'payment.void', { paymentId }, 'void-missing');
      expect(failed.isError).toBe(true);
      expect(textOf(failed)).toMatch(internalErrorText('payment.void'));
      expect(app.app.get(LedgerBehaviour).runs).toBe(runs + 1);
      expect((await app.agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    } finally {
      await migration.up(runner);
      await runner.release();
      await app.close();
    }
  }, 60_000);
});
