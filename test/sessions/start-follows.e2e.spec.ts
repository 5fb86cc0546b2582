import type { INestApplication } from '@nestjs/common';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { TypeOrmMcpSessionStore, createMcpSessionHandleMigration, createMcpSessionMigration } from '../../lib/typeorm.js';
import { LedgerBehaviour, ledgerEntity, ledgerModule } from '../fixtures/ledger.app.js';
import { CountingLogger } from '../utils/counting-logger.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { dropMigrated, openMigrated } from '../utils/migrated-data-source.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

describe.each(databaseTargets('start follows'))('a transactional start on $name, sessions recorded in the same database', ({ options }) => {
  const suffix = `sf_${uniqueSuffix()}`;
  const stateTables = {
    tableName: `mcp_state_${suffix}`,
    historyTableName: `mcp_history_${suffix}`,
    timerTableName: `mcp_timer_${suffix}`,
  };
  const sessionTables = {
    tableName: `mcp_sess_${suffix}`,
    eventTableName: `mcp_sess_${suffix}_event`,
    handleTableName: `mcp_sess_${suffix}_handle`,
  };
  const ledgerTable = `ledger_${suffix}`;
  const entity = ledgerEntity(ledgerTable);
  const logger = new CountingLogger();
  let dataSource: DataSource;
  /** Another DataSource on the same database: what an app whose session store has a connection of its own uses. */
  let otherSource: DataSource;
  let app: INestApplication;
  let agent: TestClient;

  const start = async (sessionSource: DataSource) => {
    const sessions = new TypeOrmMcpSessionStore(sessionSource, sessionTables);
    app = await listenApp([ledgerModule(dataSource, entity, stateTables, { http: { sessions: { store: sessions } } })]);
    agent = await connectClient(await mcpUrl(app));
    return sessions;
  };
  const authorize = async () => {
    const result = await agent.call('payment.authorize', { amount: 5, currency: 'EUR' });
    return result.isError ? undefined : (result.structuredContent as { paymentId: string }).paymentId;
  };
  const ledgerRows = async () => Number((await dataSource.query(`SELECT COUNT(*) AS n FROM ${ledgerTable}`))[0].n);

  beforeAll(async () => {
    dataSource = await openMigrated(
      { ...options(), entities: [entity], logger, logging: ['query'] } as DataSourceOptions,
      [createMcpSessionMigration(sessionTables), createMcpSessionHandleMigration(sessionTables)],
      `${sessionTables.tableName}_migrations`,
    );
    await dataSource.synchronize();
    await createStoreTables(dataSource, stateTables);
    otherSource = await new DataSource(options()).initialize();
  }, 60_000);

  afterEach(async () => {
    await agent?.close();
    await app?.close();
  });

  afterAll(async () => {
    await otherSource.destroy();
    await dropStoreTables(dataSource, stateTables);
    await dataSource.query(`DROP TABLE ${ledgerTable}`);
    await dropMigrated(dataSource);
  }, 60_000);

  it("writes the session's following of the new handle between the start's BEGIN and its COMMIT, once", async () => {
    const sessions = await start(dataSource);
    let paymentId: string | undefined;
    const queries = await logger.during(async () => (paymentId = await authorize()));
    expect(paymentId).toBeDefined();
    const follows = new RegExp(`^\\s*INSERT .*${sessionTables.handleTableName}`, 'i');
    expect(queries.filter((query) => follows.test(query))).toHaveLength(1);
    const follow = queries.findIndex((query) => follows.test(query));
    const begin = queries
      .slice(0, follow)
      .reduce((last, query, index) => (/^\s*(BEGIN|START TRANSACTION)/i.test(query) ? index : last), -1);
    const commit = queries.findIndex((query, index) => index > follow && /^\s*COMMIT/i.test(query));
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(commit).toBeGreaterThan(follow);
    // The ledger row, the instance and the following commit together.
    const ledger = queries.findIndex((query) => query.includes(ledgerTable) && /^\s*INSERT/i.test(query));
    expect(ledger).toBeGreaterThan(begin);
    expect(ledger).toBeLessThan(commit);
    expect(await sessions.handles(agent.transport.sessionId!)).toEqual([`payment:${paymentId}`]);
    // The session lists the new payment's tools, as it did when the following was written after the commit.
    expect(await agent.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.void']));
  });

  it('keeps no following of a start whose handler failed after writing: its transaction rolled back', async () => {
    const sessions = await start(dataSource);
    const before = await ledgerRows();
    app.get(LedgerBehaviour).throwAfterWrite = true;
    expect(await authorize()).toBeUndefined();
    expect(await ledgerRows()).toBe(before);
    expect(await sessions.handles(agent.transport.sessionId!)).toEqual([]);
  });

  it('with the session store on a DataSource of its own, records the following after the commit, as before', async () => {
    const sessions = await start(otherSource);
    let paymentId: string | undefined;
    const queries = await logger.during(async () => (paymentId = await authorize()));
    expect(paymentId).toBeDefined();
    // Written on the other DataSource, whose queries this logger does not see.
    expect(queries.filter((query) => query.includes(sessionTables.handleTableName))).toEqual([]);
    expect(await sessions.handles(agent.transport.sessionId!)).toEqual([`payment:${paymentId}`]);
  });
});
