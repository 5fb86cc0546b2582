import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { createFsmStateMigration, TypeOrmFsmStateStore } from '../lib/stores/typeorm/index.js';
import { billingModule } from './fixtures/billing.app.js';
import { CountingLogger } from './utils/counting-logger.js';
import { connectClient, mcpUrl, type TestClient } from './utils/http-client.js';

type Target = { name: string; options: () => DataSourceOptions; cleanup?: () => void };

const sqliteDir = mkdtempSync(join(tmpdir(), 'mcp-fsm-rt-'));
const targets: Target[] = [
  {
    name: 'SQLite',
    options: () => ({ type: 'better-sqlite3', database: join(sqliteDir, 'rt.sqlite') }),
    cleanup: () => rmSync(sqliteDir, { recursive: true, force: true }),
  },
];
if (process.env.TEST_POSTGRES_URL) {
  targets.push({ name: 'PostgreSQL', options: () => ({ type: 'postgres', url: process.env.TEST_POSTGRES_URL }) });
} else {
  console.warn('round trips on PostgreSQL skipped: TEST_POSTGRES_URL is not set');
}

if (process.env.TEST_MYSQL_URL) {
  targets.push({ name: 'MariaDB', options: () => ({ type: 'mysql', url: process.env.TEST_MYSQL_URL }) });
} else {
  console.warn('round trips on MariaDB skipped: TEST_MYSQL_URL is not set');
}

describe.each(targets)('round trips per call on $name (lease mode)', ({ options, cleanup }) => {
  const suffix = `rt_${process.pid}_${Date.now()}`;
  const tables = { tableName: `mcp_state_${suffix}`, historyTableName: `mcp_history_${suffix}` };
  let dataSource: DataSource;
  let logger: CountingLogger;
  let app: INestApplication;
  let agent: TestClient;

  beforeAll(async () => {
    logger = new CountingLogger();
    dataSource = new DataSource({ ...options(), logger, logging: ['query'] } as DataSourceOptions);
    await dataSource.initialize();
    const runner = dataSource.createQueryRunner();
    await new (createFsmStateMigration(tables))().up(runner);
    await runner.release();
  });

  beforeEach(async () => {
    const store = new TypeOrmFsmStateStore(dataSource, tables);
    const moduleRef = await Test.createTestingModule({ imports: [billingModule({ store })] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  afterAll(async () => {
    const runner = dataSource.createQueryRunner();
    await new (createFsmStateMigration(tables))().down(runner);
    await runner.release();
    await dataSource.destroy();
    cleanup?.();
  });

  it('a transition call makes 2 (claim, commit)', async () => {
    const started = await agent.call('payment.authorize', { amount: 1, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const queries = await logger.during(() => agent.call('payment.capture', { paymentId }));
    expect(queries).toHaveLength(2);
  });

  it('a gated call without a transition makes 1', async () => {
    const started = await agent.call('payment.authorize', { amount: 1, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await agent.call('payment.capture', { paymentId });
    const queries = await logger.during(() => agent.call('payment.receipt', { paymentId }));
    expect(queries).toHaveLength(1);
  });

  it('tools/list makes 1, with several live handles', async () => {
    for (let i = 0; i < 3; i += 1) {
      await agent.call('payment.authorize', { amount: 1, currency: 'EUR' });
    }
    const queries = await logger.during(() => agent.names());
    expect(queries).toHaveLength(1);
  });

  it('an unbound call makes none, and a refused call creates no instance', async () => {
    expect(await logger.during(() => agent.call('invoice.status'))).toHaveLength(0);
    const refused = await logger.during(() => agent.call('invoice.discharge'));
    expect(refused.filter((query) => /^\s*INSERT/i.test(query))).toEqual([]);
    const store = new TypeOrmFsmStateStore(dataSource, tables);
    expect(await store.load(`invoice:session:${agent.transport.sessionId}`)).toBeUndefined();
  });
});
