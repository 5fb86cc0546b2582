import type { INestApplication } from '@nestjs/common';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { McpModuleOptions } from '../../lib/index.js';
import { WorkflowTransitionBus } from '../../lib/extend.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { billingModule } from '../fixtures/billing.app.js';
import { CountingLogger } from '../utils/counting-logger.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

const targets = databaseTargets('menus from memory');

describe.each(targets)('menus from memory (stateCache) on $name', ({ options }) => {
  const suffix = `sc_${uniqueSuffix()}`;
  const tables = { tableName: `mcp_state_${suffix}`, historyTableName: `mcp_history_${suffix}`, timerTableName: `mcp_timer_${suffix}` };
  let dataSource: DataSource;
  let logger: CountingLogger;
  let store: TypeOrmFsmStateStore;
  let app: INestApplication | undefined;
  let agents: TestClient[];

  const start = async (moduleOptions: Partial<McpModuleOptions>) => {
    app = await listenApp([billingModule({ store, ...moduleOptions })]);
    const agent = await connectClient(await mcpUrl(app));
    agents.push(agent);
    return agent;
  };
  const authorize = async (agent: TestClient) =>
    ((await agent.call('payment.authorize', { amount: 1, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
  /** Moves a payment to `captured` behind the module's back, as a script writing to the store would. */
  const captureOutside = async (paymentId: string) => {
    const key = `payment:${paymentId}`;
    const snapshot = (await store.load(key))!;
    await store.save(key, { ...snapshot, state: 'captured', updatedAt: new Date().toISOString() });
  };

  beforeAll(async () => {
    logger = new CountingLogger();
    dataSource = new DataSource({ ...options(), logger, logging: ['query'] } as DataSourceOptions);
    await dataSource.initialize();
    await createStoreTables(dataSource, tables);
    store = new TypeOrmFsmStateStore(dataSource, tables);
  });

  beforeEach(() => {
    agents = [];
  });

  afterEach(async () => {
    await Promise.all(agents.map((agent) => agent.close()));
    await app?.close();
    app = undefined;
  });

  afterAll(async () => {
    await dropStoreTables(dataSource, tables);
    await dataSource.destroy();
  });

  it('lists without reading the store what its own transitions told it, however many handles the session follows', async () => {
    const agent = await start({ stateCache: true });
    const payments: string[] = [];
    for (let i = 0; i < 40; i += 1) payments.push(await authorize(agent));
    expect(await agent.names()).toContain('payment.capture');
    await agent.call('payment.capture', { paymentId: payments[0] });
    const queries = await logger.during(async () => {
      expect(await agent.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.refund']));
      expect(await agent.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.refund']));
    });
    expect(queries).toEqual([]);
  });

  it('reads every state on each list with it off (the default on a database store), so a write outside the module shows at once', async () => {
    const agent = await start({});
    const paymentId = await authorize(agent);
    expect(await agent.names()).not.toContain('payment.refund');
    await captureOutside(paymentId);
    expect(await agent.names()).toContain('payment.refund');
  });

  it('shows a change nobody told it about once the state it kept is older than maxAgeMs', async () => {
    // Long enough that a loaded CI machine lists twice inside it; the second list must still show the kept state.
    const maxAgeMs = 3_000;
    const agent = await start({ stateCache: { enabled: true, maxAgeMs } });
    const paymentId = await authorize(agent);
    expect(await agent.names()).not.toContain('payment.refund');
    await captureOutside(paymentId);
    expect(await agent.names()).not.toContain('payment.refund');
    await new Promise((resolve) => setTimeout(resolve, maxAgeMs + 100));
    expect(await agent.names()).toContain('payment.refund');
  });

  it('reads again a state a call found to differ from the one it kept, so the lists of every session that follows it heal', async () => {
    const owner = await start({ stateCache: true });
    const paymentId = await authorize(owner);
    expect(await owner.names()).not.toContain('payment.refund');
    await captureOutside(paymentId);
    const other = await connectClient(await mcpUrl(app!));
    agents.push(other);
    expect((await other.call('payment.receipt', { paymentId })).isError).toBeFalsy();
    expect(await owner.names()).toContain('payment.refund');
  });

  it('reads every state again after a resync (a relay that may have missed changes), and tells the session', async () => {
    const agent = await start({ stateCache: true });
    const paymentId = await authorize(agent);
    expect(await agent.names()).not.toContain('payment.refund');
    await captureOutside(paymentId);
    const before = agent.listChanged();
    app!.get(WorkflowTransitionBus).resync();
    await eventually(() => agent.listChanged() > before);
    expect(await agent.names()).toContain('payment.refund');
  });

  it("lists another session's transition of the same instance without reading the store", async () => {
    const owner = await start({ stateCache: true });
    const paymentId = await authorize(owner);
    expect(await owner.names()).toContain('payment.capture');
    const other = await connectClient(await mcpUrl(app!));
    agents.push(other);
    expect((await other.call('payment.capture', { paymentId })).isError).toBeFalsy();
    const queries = await logger.during(async () => expect(await owner.names()).toEqual(expect.arrayContaining(['payment.refund'])));
    expect(queries).toEqual([]);
  });
});
