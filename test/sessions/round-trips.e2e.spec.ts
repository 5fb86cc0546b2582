import type { INestApplication } from '@nestjs/common';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { WorkflowDeadlineScheduler } from '../../lib/extend.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { billingModule } from '../fixtures/billing.app.js';
import { CountingLogger } from '../utils/counting-logger.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

const targets = databaseTargets('round trips');

describe.each(targets)('round trips per call on $name (lease mode)', ({ name, options }) => {
  const suffix = `rt_${uniqueSuffix()}`;
  const tables = { tableName: `mcp_state_${suffix}`, historyTableName: `mcp_history_${suffix}`, timerTableName: `mcp_timer_${suffix}` };
  let dataSource: DataSource;
  let logger: CountingLogger;
  let app: INestApplication;
  let agent: TestClient;

  beforeAll(async () => {
    logger = new CountingLogger();
    dataSource = new DataSource({ ...options(), logger, logging: ['query'] } as DataSourceOptions);
    await dataSource.initialize();
    await createStoreTables(dataSource, tables);
  });

  beforeEach(async () => {
    const store = new TypeOrmFsmStateStore(dataSource, tables);
    app = await listenApp([billingModule({ store })]);
    // The payment machine has a deadline: its scheduler polls once at bootstrap, in a transaction of its
    // own, whose statements must not fall into a call's measured window.
    await eventually(() => app.get(WorkflowDeadlineScheduler).polling().lastPollOkAt !== undefined);
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  afterAll(async () => {
    await dropStoreTables(dataSource, tables);
    await dataSource.destroy();
  });

  // MariaDB has no UPDATE … RETURNING: a claim brings a non-empty XState context back with one more SELECT.
  it('a transition call makes 2 (claim, commit); 3 on MariaDB for a machine with context', async () => {
    const started = await agent.call('payment.authorize', { amount: 1, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await agent.call('payment.capture', { paymentId });
    // captured → refunded: neither state has a deadline, so the commit writes no timer.
    const queries = await logger.during(() => agent.call('payment.refund', { paymentId }));
    expect(queries).toHaveLength(name === 'MariaDB' ? 3 : 2);
  });

  it('a transition that leaves a state with a deadline deletes its timer in the commit’s transaction', async () => {
    const started = await agent.call('payment.authorize', { amount: 1, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const queries = await logger.during(() => agent.call('payment.capture', { paymentId }));
    const at = (pattern: RegExp) => queries.findIndex((query) => pattern.test(query));
    const begin = at(/^\s*(BEGIN|START TRANSACTION)/i);
    const remove = at(/^\s*DELETE FROM\s+\S*mcp_timer_/i);
    const commit = at(/^\s*COMMIT/i);
    expect(queries.filter((query) => /^\s*DELETE FROM\s+\S*mcp_timer_/i.test(query))).toHaveLength(1);
    expect(begin).toBeGreaterThan(0);
    expect(remove).toBeGreaterThan(begin);
    expect(commit).toBeGreaterThan(remove);
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

  it('a status read makes 1 read and no write, and a refused call creates no instance', async () => {
    const read = await logger.during(() => agent.call('invoice.status'));
    expect(read).toHaveLength(1);
    expect(read[0]).toMatch(/^\s*SELECT/i);
    const refused = await logger.during(() => agent.call('invoice.discharge'));
    expect(refused.filter((query) => /^\s*INSERT/i.test(query))).toEqual([]);
    const store = new TypeOrmFsmStateStore(dataSource, tables);
    expect(await store.load(`invoice:session:${agent.transport.sessionId}`)).toBeUndefined();
  });
});
