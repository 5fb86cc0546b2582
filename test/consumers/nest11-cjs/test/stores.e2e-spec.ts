import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RelayedTransition } from 'nestjs-mcp-fsm/extend';
import {
  describeFsmStateStoreContract,
  describeMcpSessionStoreContract,
  describeFsmStateReaderContract,
  type FsmStoreBusinessTable,
  type FsmStoreFactory,
} from 'nestjs-mcp-fsm/testing';
import {
  createMcpSessionHandleMigration,
  createMcpSessionMigration,
  createOutboxMigration,
  createOutboxReplyMigration,
  createWorkflowApprovalMigration,
  createWorkflowContextMigration,
  createWorkflowTeamMigration,
  createWorkflowListIndexMigration,
  createWorkflowStateMigration,
  OutboxTransitionRelay,
  PostgresTransitionRelay,
  TypeOrmFsmStateStore,
  TypeOrmMcpSessionStore,
} from 'nestjs-mcp-fsm/typeorm';
import { DataSource, DataSourceOptions, EntityManager } from 'typeorm';

/** SQLite always; PostgreSQL and MariaDB when TEST_POSTGRES_URL / TEST_MYSQL_URL are set. */
const targets: Array<{ name: string; options: DataSourceOptions }> = [
  { name: 'SQLite', options: { type: 'better-sqlite3', database: join(mkdtempSync(join(tmpdir(), 'nest11-stores-')), 'stores.sqlite') } },
  ...(process.env.TEST_POSTGRES_URL
    ? [{ name: 'PostgreSQL', options: { type: 'postgres', url: process.env.TEST_POSTGRES_URL } as const }]
    : []),
  ...(process.env.TEST_MYSQL_URL ? [{ name: 'MariaDB', options: { type: 'mysql', url: process.env.TEST_MYSQL_URL } as const }] : []),
];

it('runs on TypeORM 0.3', () => {
  const { version } = JSON.parse(readFileSync(join(dirname(require.resolve('typeorm')), 'package.json'), 'utf8')) as { version: string };
  expect(version).toMatch(/^0\.3\./);
});

describe.each(targets)('the TypeORM stores, migrations and relays on $name (TypeORM 0.3)', ({ name, options }) => {
  const prefix = `n11_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const tables = { tableName: `${prefix}_state`, historyTableName: `${prefix}_transition` };
  const sessionTables = { tableName: `${prefix}_session`, eventTableName: `${prefix}_event`, handleTableName: `${prefix}_handle` };
  const outbox = `${prefix}_outbox`;
  const ledger = `${prefix}_ledger`;
  const placeholder = options.type === 'postgres' ? '$1' : '?';
  let dataSource: DataSource;
  let peer: DataSource;

  beforeAll(async () => {
    dataSource = new DataSource({
      ...options,
      migrations: [
        createWorkflowStateMigration(tables),
        createWorkflowContextMigration(tables),
        createWorkflowApprovalMigration(tables),
        createWorkflowTeamMigration(tables),
        createWorkflowListIndexMigration(tables),
        createMcpSessionMigration(sessionTables),
        createMcpSessionHandleMigration(sessionTables),
        createOutboxMigration({ tableName: outbox }),
        createOutboxReplyMigration({ tableName: outbox }),
      ],
      migrationsTableName: `${prefix}_migrations`,
    } as DataSourceOptions);
    await dataSource.initialize();
    await dataSource.runMigrations();
    await dataSource.query(`CREATE TABLE ${ledger} (id varchar(64) NOT NULL PRIMARY KEY)`);
    // A second DataSource stands for another process on the same database.
    peer = await new DataSource(options).initialize();
  });

  afterAll(async () => {
    await dataSource.query(`DROP TABLE ${ledger}`);
    for (let undone = 0; undone < 7; undone++) await dataSource.undoLastMigration();
    await dataSource.query(`DROP TABLE ${prefix}_migrations`);
    await peer.destroy();
    await dataSource.destroy();
  });

  const factory: FsmStoreFactory<TypeOrmFsmStateStore> = async ({ history }) => ({
    store: new TypeOrmFsmStateStore(dataSource, { ...tables, history }),
    cleanup: async () => undefined,
  });
  const business: FsmStoreBusinessTable = {
    write: async (manager, id) => {
      await (manager as EntityManager).query(`INSERT INTO ${ledger} (id) VALUES (${placeholder})`, [id]);
    },
    count: async (id) => Number((await dataSource.query(`SELECT COUNT(*) AS n FROM ${ledger} WHERE id = ${placeholder}`, [id]))[0].n),
  };

  describeFsmStateStoreContract(name, factory, { factory, business });
  describeFsmStateReaderContract(name, factory);
  describeMcpSessionStoreContract(name, async () => ({
    store: new TypeOrmMcpSessionStore(dataSource, sessionTables),
    peer: new TypeOrmMcpSessionStore(peer, sessionTables),
    cleanup: async () => undefined,
  }));

  /** Starts `receiver`, publishes one transition on `sender`, and resolves with what the receiver heard. */
  const relayed = async (
    sender: { publish(transition: RelayedTransition): void },
    receiver: OutboxTransitionRelay | PostgresTransitionRelay,
  ) => {
    const heard: RelayedTransition[] = [];
    await receiver.start((transition) => heard.push(transition));
    const transition = { machine: 'invoice', storeKey: `invoice:${prefix}`, state: 'review' };
    for (let tries = 0; heard.length === 0 && tries < 200; tries++) {
      if (tries % 20 === 0) sender.publish(transition);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return heard.slice(0, 1);
  };

  it('carries a transition from one process to another through the outbox relay', async () => {
    const sender = new OutboxTransitionRelay(dataSource, { tableName: outbox, pollIntervalMs: 20 });
    const receiver = new OutboxTransitionRelay(peer, { tableName: outbox, pollIntervalMs: 20 });
    await sender.start(() => undefined);
    try {
      expect(await relayed(sender, receiver)).toEqual([{ machine: 'invoice', storeKey: `invoice:${prefix}`, state: 'review' }]);
    } finally {
      await receiver.stop();
      await sender.stop();
    }
  });

  (options.type === 'postgres' ? it : it.skip)('carries a transition through PostgreSQL LISTEN/NOTIFY', async () => {
    const sender = new PostgresTransitionRelay(dataSource, { channel: `${prefix}_channel` });
    const receiver = new PostgresTransitionRelay(peer, { channel: `${prefix}_channel` });
    await sender.start(() => undefined);
    try {
      expect(await relayed(sender, receiver)).toEqual([{ machine: 'invoice', storeKey: `invoice:${prefix}`, state: 'review' }]);
    } finally {
      await receiver.stop();
      await sender.stop();
    }
  });
});
