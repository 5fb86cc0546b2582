import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import { runInSqliteTurn } from '../../lib/typeorm.js';
import { LedgerBehaviour } from '../fixtures/ledger.app.js';
import { startLedgerApp, type LedgerApp } from '../utils/ledger-app.js';

const tables = { tableName: 'turn_state', historyTableName: 'turn_history', history: true };

describe('runInSqliteTurn: app queries beside a transactional call on better-sqlite3', () => {
  const directory = mkdtempSync(join(tmpdir(), 'fsm-turn-'));
  const options = { type: 'better-sqlite3', database: join(directory, 'turn.sqlite'), enableWAL: true } as DataSourceOptions;
  let ledgerApp: LedgerApp;
  let behaviour: LedgerBehaviour;

  beforeAll(async () => {
    ledgerApp = await startLedgerApp(options, 'turn_ledger', tables);
    behaviour = ledgerApp.app.get(LedgerBehaviour);
  });

  afterEach(() => {
    behaviour.delayMs = 0;
    behaviour.throwAfterWrite = false;
  });

  afterAll(async () => {
    await ledgerApp?.close({ drop: false });
    rmSync(directory, { recursive: true, force: true });
  });

  const captures = (paymentId: string) =>
    ledgerApp.dataSource.query(`SELECT COUNT(*) AS n FROM turn_ledger WHERE paymentId = ? AND kind = 'capture'`, [paymentId]) as Promise<
      { n: number }[]
    >;

  async function authorized(): Promise<string> {
    const result = await ledgerApp.agent.call('payment.authorize', { amount: 10, currency: 'EUR' });
    return (result.structuredContent as { paymentId: string }).paymentId;
  }

  /** Starts a capture whose handler writes its ledger row, then waits, then fails; resolves once the row is written, with the call. */
  async function captureThatRollsBack(paymentId: string) {
    behaviour.delayMs = 300;
    behaviour.throwAfterWrite = true;
    const runsBefore = behaviour.runs;
    const call = ledgerApp.agent.call('payment.capture', { paymentId });
    while (behaviour.runs === runsBefore) await new Promise((resolve) => setTimeout(resolve, 5));
    // The handler counts its run before its insert: wait for the row on the shared connection.
    while (Number((await captures(paymentId))[0].n) === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    return { call };
  }

  it('never shows a row of a call that rolls back, where a plain query on the shared connection does', async () => {
    const paymentId = await authorized();
    const { call } = await captureThatRollsBack(paymentId);

    // The shared connection is inside the capture's transaction: a plain read sees its row.
    const [plain] = await captures(paymentId);
    const [inTurn] = await runInSqliteTurn(ledgerApp.dataSource, () => captures(paymentId));
    const result = await call;

    expect(result.isError).toBe(true);
    expect(Number(plain.n)).toBe(1);
    expect(Number(inTurn.n)).toBe(0);
    expect(Number((await captures(paymentId))[0].n)).toBe(0);
  });

  it('fails with a message naming the cause when the turn stays taken past timeoutMs', async () => {
    const paymentId = await authorized();
    const { call } = await captureThatRollsBack(paymentId);

    await expect(runInSqliteTurn(ledgerApp.dataSource, () => captures(paymentId), { timeoutMs: 50 })).rejects.toThrow(
      /not free within 50 ms .*transactional handler.*ctx\.manager/,
    );
    await call;
  });
});
