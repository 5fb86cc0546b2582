import { randomBytes, randomUUID } from 'node:crypto';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { storeInvalidTableName } from '../../lib/stores/stores.messages.js';
import {
  CreateMcpSessionHandles1764806400000,
  CreateMcpSessions1764633600000,
  createMcpSessionHandleMigration,
  createMcpSessionMigration,
} from '../../lib/stores/typeorm/mcp-session.migration.js';
import { McpSessionRecordError } from '../../lib/stores/mcp-session-record.error.js';
import { sessionStoreSchemaNotReady } from '../../lib/stores/typeorm/session-store.messages.js';
import { TypeOrmMcpSessionStore } from '../../lib/stores/typeorm/typeorm-mcp-session.store.js';
import { CountingLogger } from '../utils/counting-logger.js';
import { dropMigrated, openMigrated } from '../utils/migrated-data-source.js';
import { type DatabaseTarget, databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { describeMcpSessionStoreContract, sessionRecord, streamMessage } from '../../lib/testing.js';

/** Round trips of the operations whose count depends on the dialect (see `TypeOrmMcpSessionStore`). */
const expectedRoundTrips: Record<string, { delete: number; expire: number; expireNone: number }> = {
  SQLite: { delete: 3, expire: 3, expireNone: 1 },
  PostgreSQL: { delete: 1, expire: 1, expireNone: 1 },
  // A SELECT of the candidates, then one DELETE per candidate (one here).
  MariaDB: { delete: 1, expire: 2, expireNone: 1 },
};

const tablesOfRun = () => {
  const prefix = `mcp_sess_${uniqueSuffix()}_${randomBytes(3).toString('hex')}`;
  return { tableName: prefix, eventTableName: `${prefix}_event`, handleTableName: `${prefix}_handle` };
};

describe.each(databaseTargets('TypeOrmMcpSessionStore'))('TypeOrmMcpSessionStore on $name', (target: DatabaseTarget) => {
  const tables = tablesOfRun();
  const migrationsTableName = `${tables.tableName}_migrations`;
  const logger = new CountingLogger();
  let dataSource: DataSource;
  let peerSource: DataSource;

  beforeAll(async () => {
    dataSource = await openMigrated(
      { ...target.options(), logger } as DataSourceOptions,
      [createMcpSessionMigration(tables), createMcpSessionHandleMigration(tables)],
      migrationsTableName,
    );
    // A second DataSource stands for another process on the same database.
    peerSource = await new DataSource(target.options()).initialize();
  }, 60_000);

  afterAll(async () => {
    await peerSource.destroy();
    await dropMigrated(dataSource);
  }, 60_000);

  describeMcpSessionStoreContract(target.name, async () => ({
    store: new TypeOrmMcpSessionStore(dataSource, tables),
    peer: new TypeOrmMcpSessionStore(peerSource, tables),
    cleanup: async () => undefined,
  }));

  it('round trips per operation (counted with a query logger)', async () => {
    const expected = expectedRoundTrips[target.name];
    const store = new TypeOrmMcpSessionStore(dataSource, tables);
    const during = (work: () => Promise<unknown>) => logger.during(work);
    const server = `server-${randomUUID()}`;
    const record = sessionRecord(server, 1_000, 'alice');
    expect(await during(() => store.create(record))).toHaveLength(1);
    expect(await during(() => store.find(record.id))).toHaveLength(1);
    expect(await during(() => store.touch(record.id, 1_500))).toHaveLength(1);
    let first = '';
    expect(await during(async () => (first = await store.appendEvent(record.id, streamMessage(1))))).toHaveLength(1);
    await store.appendEvent(record.id, streamMessage(2));
    expect(await during(() => store.eventsAfter(record.id, first))).toHaveLength(1);
    expect(await during(() => store.eventsAfter(record.id, 'not-an-event'))).toHaveLength(0);
    expect(await during(() => store.pruneEvents(0, 10))).toHaveLength(1);
    expect(await during(() => store.expire(server, 1_000, 10))).toHaveLength(expected.expireNone);
    let ended: string[] = [];
    expect(await during(async () => (ended = await store.expire(server, 2_000, 10)))).toHaveLength(expected.expire);
    expect(ended).toEqual([record.id]);
    const unused = { ...sessionRecord(server, 1_000), createdAt: 1_000 };
    await store.create(unused);
    expect(await during(() => store.expireUnused(server, 1_000, 10))).toHaveLength(expected.expireNone);
    expect(await during(async () => (ended = await store.expireUnused(server, 2_000, 10)))).toHaveLength(expected.expire);
    expect(ended).toEqual([unused.id]);
    await store.create(record);
    expect(await during(() => store.follow(record.id, 'payment:h1'))).toHaveLength(1);
    expect(await during(() => store.handles(record.id))).toHaveLength(1);
    expect(await during(() => store.followers('payment:h1', 16))).toHaveLength(1);
    expect(await during(() => store.unfollow(record.id, 'payment:h1'))).toHaveLength(1);
    expect(await during(() => store.delete(record.id))).toHaveLength(expected.delete);
  });

  it('fails the bootstrap when the table of followed handles is missing, naming its migration', async () => {
    const missing = { ...tables, handleTableName: `${tables.tableName}_no_handles` };
    const error = await new TypeOrmMcpSessionStore(dataSource, missing).onApplicationBootstrap().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/Run the migration CreateMcpSessionHandles1764806400000 \(createMcpSessionHandleMigration/);
  });

  it('reads a row whose initialize params are not JSON as an McpSessionRecordError, and other rows as before', async () => {
    const store = new TypeOrmMcpSessionStore(dataSource, tables);
    const record = sessionRecord('main', 1_000);
    const intact = sessionRecord('main', 1_000);
    await store.create(record);
    await store.create(intact);
    const placeholder = target.options().type === 'postgres' ? '$1' : '?';
    const quote = target.options().type === 'mysql' ? '`' : '"';
    await dataSource.query(
      `UPDATE ${quote}${tables.tableName}${quote} SET initialize = '{"protocolVersion": "2025-' WHERE id = ${placeholder}`,
      [record.id],
    );
    const error = await store.find(record.id).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpSessionRecordError);
    expect((error as Error).message).toMatch(/the stored session's initialize cannot be read/);
    expect(await store.find(intact.id)).toStrictEqual(intact);
    expect(await store.delete(record.id)).toBe(true);
  });

  it('fails the bootstrap when a table is missing, naming the migration to run', async () => {
    const missing = { ...tables, eventTableName: `${tables.tableName}_missing` };
    const error = await new TypeOrmMcpSessionStore(dataSource, missing).onApplicationBootstrap().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(Error);
    const quote = target.options().type === 'mysql' ? '`' : '"';
    const names = [missing.tableName, missing.eventTableName].map((name) => `${quote}${name}${quote}`);
    expect((error as Error).message).toBe(sessionStoreSchemaNotReady(names, (error as Error).cause));
    expect((error as Error).message).toMatch(/Run the migration CreateMcpSessions1764633600000/);
    await expect(new TypeOrmMcpSessionStore(dataSource, tables).onApplicationBootstrap()).resolves.toBeUndefined();
  });

  it('the handle migration creates its table keyed by session and store key, indexed by store key, and down drops it', async () => {
    const own = tablesOfRun();
    const migration = new (createMcpSessionHandleMigration(own))();
    const runner = dataSource.createQueryRunner();
    try {
      await migration.up(runner);
      const handles = (await runner.getTable(own.handleTableName))!;
      expect(handles.primaryColumns.map((column) => column.name).sort()).toEqual(['session_id', 'store_key']);
      expect(handles.indices.map((index) => [...index.columnNames].sort())).toEqual([['created_at', 'store_key']]);
      await migration.down(runner);
      expect(await runner.hasTable(own.handleTableName)).toBe(false);
    } finally {
      await runner.dropTable(own.handleTableName, true);
      await runner.release();
    }
  });

  it('its migration creates both tables with their indexes, and down drops both', async () => {
    const own = tablesOfRun();
    const migration = new (createMcpSessionMigration(own))();
    const runner = dataSource.createQueryRunner();
    try {
      await migration.up(runner);
      const sessions = (await runner.getTable(own.tableName))!;
      const events = (await runner.getTable(own.eventTableName))!;
      expect(sessions.primaryColumns.map((column) => column.name)).toEqual(['id']);
      expect(sessions.findColumnByName('principal')?.isNullable).toBe(true);
      // TypeORM reads an index's columns back in table order on PostgreSQL: compare them as sets.
      const indexed = (table: typeof sessions) => table.indices.map((index) => [...index.columnNames].sort());
      expect(indexed(sessions)).toEqual([['last_seen_at', 'server_id']]);
      expect(events.primaryColumns.map((column) => [column.name, column.isGenerated])).toEqual([['id', true]]);
      expect(indexed(events)).toEqual(expect.arrayContaining([['id', 'session_id'], ['created_at']]));
      await migration.down(runner);
      expect(await runner.hasTable(own.tableName)).toBe(false);
      expect(await runner.hasTable(own.eventTableName)).toBe(false);
    } finally {
      await runner.dropTable(own.eventTableName, true);
      await runner.dropTable(own.tableName, true);
      await runner.release();
    }
  });

  it('refuses a table name that is not a plain identifier', () => {
    const name = 'mcp_session; DROP TABLE users';
    expect(() => new TypeOrmMcpSessionStore(dataSource, { tableName: name })).toThrow(
      storeInvalidTableName('TypeOrmMcpSessionStore', name),
    );
    expect(() => createMcpSessionMigration({ eventTableName: name })).toThrow(storeInvalidTableName('createMcpSessionMigration', name));
    expect(() => createMcpSessionHandleMigration({ handleTableName: name })).toThrow(
      storeInvalidTableName('createMcpSessionHandleMigration', name),
    );
  });
});

const postgres = process.env.TEST_POSTGRES_URL;

(postgres ? describe : describe.skip)('TypeOrmMcpSessionStore on PostgreSQL with a DataSource schema', () => {
  it("uses the tables its migration created in the DataSource's schema", async () => {
    const schema = `mcp_sess_schema_${randomUUID().slice(0, 8)}`;
    const admin = await new DataSource({ type: 'postgres', url: postgres }).initialize();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const dataSource = new DataSource({
      type: 'postgres',
      url: postgres,
      schema,
      migrations: [CreateMcpSessions1764633600000, CreateMcpSessionHandles1764806400000],
      migrationsRun: true,
    });
    try {
      await dataSource.initialize();
      const store = new TypeOrmMcpSessionStore(dataSource);
      await store.onApplicationBootstrap();
      const record = sessionRecord('main', 1_000);
      await store.create(record);
      const event = await store.appendEvent(record.id, streamMessage(1));
      expect(await store.touch(record.id, 1_500)).toBe(true);
      const rows = await admin.query(`SELECT last_seen_at FROM ${schema}.mcp_session WHERE id = $1`, [record.id]);
      expect(rows).toEqual([{ last_seen_at: '1500' }]);
      expect(await store.eventsAfter(record.id, event)).toEqual([]);
      expect(await store.expire('main', 2_000, 10)).toEqual([record.id]);
      expect(await admin.query(`SELECT id FROM ${schema}.mcp_session_event`)).toEqual([]);
    } finally {
      if (dataSource.isInitialized) await dataSource.destroy();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.destroy();
    }
  });
});
