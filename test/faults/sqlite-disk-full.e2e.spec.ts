import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { startLedgerApp, type LedgerApp } from '../utils/ledger-app.js';

const tables = { tableName: 'full_state', historyTableName: 'full_history', history: true };

describe('SQLite that runs out of space (PRAGMA max_page_count)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'fsm-full-'));
  const file = join(directory, 'full.sqlite');
  const options = { type: 'better-sqlite3', database: file, enableWAL: true } as DataSourceOptions;
  let ledgerApp: LedgerApp;

  beforeAll(async () => {
    ledgerApp = await startLedgerApp(options, 'full_ledger', tables);
  });

  afterAll(async () => {
    // The tables go with the directory.
    await ledgerApp?.close({ drop: false });
    rmSync(directory, { recursive: true, force: true });
  });

  it('acknowledges only calls that are in the file after a restart, and works again once there is room', async () => {
    const { agent, dataSource } = ledgerApp;
    const authorized: string[] = [];
    const captured: string[] = [];
    const failures: CallToolResult[] = [];
    const errorCode = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/error'] as { code?: string } | undefined)?.code;
    const authorize = async () => {
      const result = await agent.call('payment.authorize', { amount: 10, currency: 'EUR' });
      if (result.isError) failures.push(result);
      else authorized.push((result.structuredContent as { paymentId: string }).paymentId);
    };
    const capture = async (paymentId: string) => {
      const result = await agent.call('payment.capture', { paymentId });
      if (!result.isError) captured.push(paymentId);
      else if (errorCode(result) !== 'FORBIDDEN') failures.push(result);
      return result;
    };

    await authorize();
    const [{ page_count: pages }] = await dataSource.query('PRAGMA page_count');
    await dataSource.query(`PRAGMA max_page_count = ${pages}`);
    for (let round = 0; round < 40 && failures.length < 10; round++) {
      await authorize();
      const open = authorized.find((paymentId) => !captured.includes(paymentId));
      if (open) await capture(open);
      // A refused call (FORBIDDEN) rolls its transaction back without an error: after a failed one, it must not leave a transaction open.
      if (captured.length) expect(errorCode(await capture(captured[0]))).toBe('FORBIDDEN');
    }
    expect(failures.length).toBeGreaterThanOrEqual(3);
    for (const failure of failures) {
      expect(failure.structuredContent).toBeUndefined();
      expect(['STATE_UNAVAILABLE', undefined]).toContain(errorCode(failure));
    }

    await dataSource.query('PRAGMA max_page_count = 1073741823');
    const failedBefore = failures.length;
    await authorize();
    await capture(authorized.at(-1)!);
    expect(failures).toHaveLength(failedBefore);

    await ledgerApp.close({ drop: false });
    const reopened = new DataSource(options);
    await reopened.initialize();
    try {
      const states = new Map<string, string>(
        ((await reopened.query(`SELECT handle, state FROM ${tables.tableName}`)) as { handle: string; state: string }[]).map((row) => [
          row.handle,
          row.state,
        ]),
      );
      const ledger = (await reopened.query('SELECT paymentId, kind FROM full_ledger')) as { paymentId: string; kind: string }[];
      for (const paymentId of authorized) {
        expect(states.get(`payment:${paymentId}`)).toBe(captured.includes(paymentId) ? 'captured' : 'authorized');
        expect(ledger.filter((row) => row.paymentId === paymentId).map((row) => row.kind)).toEqual(
          captured.includes(paymentId) ? ['authorize', 'capture'] : ['authorize'],
        );
      }
      expect(states.size).toBe(authorized.length);
      expect(ledger).toHaveLength(authorized.length + captured.length);
    } finally {
      await reopened.destroy();
    }
  });
});
