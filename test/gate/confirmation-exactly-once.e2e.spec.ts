import type { INestApplication } from '@nestjs/common';
import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { DataSource } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { ConfirmLog, confirmModule } from '../fixtures/confirm.app.js';
import { describeNetworkedTargets, uniqueSuffix } from '../utils/databases.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

/** Concurrent confirmed calls per app and era. */
const CALLERS = 6;

type Result = { isError?: boolean; _meta?: Record<string, unknown> };
const codeOf = (result: Result) => (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

describeNetworkedTargets('confirmations exactly once')(
  'confirmed calls on one instance from two apps on one $name, everyone saying yes',
  ({ options }) => {
    const suffix = uniqueSuffix();
    const tables = { tableName: `confirm_state_${suffix}`, historyTableName: `confirm_history_${suffix}` };
    const requestStateKey = 'exactly-once-shared-key-of-32-bytes!';
    let dataSource: DataSource;
    let apps: INestApplication[];
    let legacy: TestClient[];
    let modern: ModernClient[];

    beforeAll(async () => {
      dataSource = await new DataSource(options()).initialize();
      await createStoreTables(dataSource, tables);
    });

    afterAll(async () => {
      await dropStoreTables(dataSource, tables);
      await dataSource.destroy();
    });

    beforeEach(async () => {
      apps = [];
      for (let i = 0; i < 2; i++) {
        const store = new TypeOrmFsmStateStore(dataSource, tables);
        apps.push(await listenApp([confirmModule({ store, inputRequests: { requestStateKey } })]));
      }
      legacy = [];
      modern = [];
    });

    afterEach(async () => {
      await Promise.all([...legacy.map((client) => client.close()), ...modern.map((client) => client.close())]);
      await Promise.all(apps.map((app) => app.close()));
    });

    it('runs the handler once in all: 2025-11-25 sessions and 2026-07-28 calls on both apps, each with its own yes', async () => {
      const answer = { action: 'accept' as const, content: { reference: 'REF-42' } };
      for (const app of apps) {
        const url = await mcpUrl(app);
        for (let i = 0; i < CALLERS; i++) {
          legacy.push(await connectClient(url, undefined, { elicitation: answer }));
          modern.push(await connectModernClient(url, undefined, { answer }));
        }
      }
      const opened = await legacy[0].call('transfer.open');
      const { transferId } = opened.structuredContent as { transferId: string };
      const args = { transferId, amount: 250 };

      const results: Result[] = await Promise.all([
        ...legacy.map((client) => client.call('transfer.execute', args)),
        ...modern.map((client) => client.callTool({ name: 'transfer.execute', arguments: args }) as Promise<Result>),
      ]);

      const succeeded = results.filter((result) => !result.isError);
      expect(succeeded).toHaveLength(1);
      const refusals = results.filter((result) => result.isError).map(codeOf);
      expect(refusals.every((code) => code === 'FORBIDDEN' || code === 'BUSY')).toBe(true);
      expect(apps.reduce((runs, app) => runs + app.get(ConfirmLog).count('transfer.execute'), 0)).toBe(1);
      expect(legacy.every((client) => client.asked.length <= 1)).toBe(true);
      const stored = await new TypeOrmFsmStateStore(dataSource, tables).load(`transfer:${transferId}`);
      expect(stored?.state).toBe('executed');
    });
  },
);
