import { DataSource, type DataSourceOptions } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { CreateMcpFsmOutbox1764720000000 } from '../../lib/relays/typeorm/fsm-outbox.migration.js';
import { AddMcpFsmOutboxReply1765584000000 } from '../../lib/relays/typeorm/outbox-reply.migration.js';
import { OutboxTransitionRelay, type OutboxTransitionRelayOptions } from '../../lib/relays/typeorm/outbox-transition.relay.js';
import { outboxPollFailed, outboxPollRecovered, outboxSchemaNotReady } from '../../lib/relays/typeorm/relays.messages.js';
import { type DatabaseTarget, databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { eventually } from '../utils/http-client.js';
import { migrateOutbox } from '../utils/outbox-table.js';
import { expectTransitionRelayed } from '../utils/relay-pair.js';
import { expectEachHearsTheOther, paymentTransition as transition, RelayTestBed } from '../utils/relay-test-bed.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { startProxy } from '../utils/tcp-proxy.js';

/** A relay whose poll and prune the test runs itself. */
class ManualOutboxRelay extends OutboxTransitionRelay {
  pruneNow(): Promise<number> {
    return this.prune();
  }
}

describe.each(databaseTargets('outbox transition relay e2e'))('outbox transition relay on $name', (target: DatabaseTarget) => {
  const suffix = uniqueSuffix();
  const tables = {
    tableName: `outbox_state_${suffix}`,
    historyTableName: `outbox_history_${suffix}`,
    timerTableName: `outbox_timer_${suffix}`,
  };
  const outbox = `outbox_${suffix}`;
  // SQLite: every DataSource opens the same file, like processes sharing one database.
  const options = (url?: string) =>
    (target.name === 'SQLite' ? { ...target.options(), enableWAL: true } : target.options(url)) as DataSourceOptions;
  const quote = (name: string) => (target.name === 'MariaDB' ? `\`${name}\`` : `"${name}"`);
  let bed: RelayTestBed;

  const open = async (url?: string) => {
    const dataSource = await new DataSource(options(url)).initialize();
    bed.dataSources.push(dataSource);
    return dataSource;
  };
  const receiver = (dataSource: DataSource, relayOptions: OutboxTransitionRelayOptions = {}) =>
    bed.receiver(new OutboxTransitionRelay(dataSource, { tableName: outbox, pollIntervalMs: 20, ...relayOptions }));
  const insertRow = (dataSource: DataSource, table: string, values: { id?: number; storeKey: string; createdAt: number }) => {
    const columns = ['origin', 'machine', 'store_key', 'state', 'created_at'];
    const params: unknown[] = ['elsewhere', 'payment', values.storeKey, 'captured', values.createdAt];
    if (values.id !== undefined) {
      columns.unshift('id');
      params.unshift(values.id);
    }
    const placeholders = params.map((_, index) => (target.name === 'PostgreSQL' ? `$${index + 1}` : '?'));
    return dataSource.query(`INSERT INTO ${quote(table)} (${columns.join(', ')}) VALUES (${placeholders.join(', ')})`, params);
  };
  const countOlderThan = async (dataSource: DataSource, cutoff: number) => {
    const param = target.name === 'PostgreSQL' ? '$1' : '?';
    const [row] = await dataSource.query(`SELECT COUNT(*) AS n FROM ${quote(outbox)} WHERE created_at < ${param}`, [cutoff]);
    return Number(row.n);
  };

  beforeAll(async () => {
    const setup = await new DataSource(options()).initialize();
    await createStoreTables(setup, tables);
    await migrateOutbox(setup, outbox, 'up');
    await setup.destroy();
  });

  beforeEach(() => {
    bed = new RelayTestBed();
  });

  afterEach(() => bed.close());

  afterAll(async () => {
    const teardown = await new DataSource(options()).initialize();
    await migrateOutbox(teardown, outbox, 'down');
    await dropStoreTables(teardown, tables);
    await teardown.destroy();
  });

  it('tells a session on instance A when a call on instance B moved its payment', async () => {
    await expectTransitionRelayed(async () => {
      const dataSource = await open();
      return {
        store: new TypeOrmFsmStateStore(dataSource, tables),
        transitionRelay: new OutboxTransitionRelay(dataSource, { tableName: outbox, pollIntervalMs: 50 }),
      };
    });
  });

  it('hands each process the transitions of the others only, from the newest row at its start on', async () => {
    const a = await receiver(await open());
    const b = await receiver(await open());

    await expectEachHearsTheOther(a, b);

    const late = await receiver(await open());
    a.relay.publish(transition('payment:3', 'refunded'));
    await eventually(() => late.received.length === 1 && b.received.length === 2);
    expect(late.received).toEqual([transition('payment:3', 'refunded')]);
    expect(b.received).toEqual([transition('payment:1'), transition('payment:3', 'refunded')]);
    expect(a.received).toEqual([transition('payment:2', null)]);
  });

  it('reads every row of a burst larger than one batch, in order', async () => {
    const a = await receiver(await open());
    const b = await receiver(await open(), { batchSize: 7 });
    const keys = Array.from({ length: 30 }, (_, index) => `payment:burst-${index}`);
    for (const key of keys) a.relay.publish(transition(key));
    await eventually(() => b.received.length === keys.length, 5000);
    expect(new Set(b.received.map((relayed) => relayed.storeKey))).toEqual(new Set(keys));
  });

  it('prunes rows older than retentionMs in bounded batches, from several processes at once', async () => {
    const writer = await open();
    const old = Date.now() - 120_000;
    for (let index = 0; index < 25; index++) {
      await insertRow(writer, outbox, { storeKey: `payment:old-${index}`, createdAt: old });
    }
    const cutoff = Date.now() - 60_000;
    const fresh = (await countOlderThan(writer, Number.MAX_SAFE_INTEGER)) - 25;
    const pruners = [
      new ManualOutboxRelay(writer, { tableName: outbox, batchSize: 10 }),
      new ManualOutboxRelay(await open(), { tableName: outbox, batchSize: 10 }),
    ];

    const deleted: number[] = [];
    for (let round = 0; round < 3; round++) {
      deleted.push(...(await Promise.all(pruners.map((pruner) => pruner.pruneNow()))));
    }
    expect(deleted.every((count) => count <= 10)).toBe(true);
    expect(deleted.reduce((sum, count) => sum + count, 0)).toBe(25);
    expect(await countOlderThan(writer, cutoff)).toBe(0);
    expect(await countOlderThan(writer, Number.MAX_SAFE_INTEGER)).toBe(fresh);

    await insertRow(writer, outbox, { storeKey: 'payment:old-again', createdAt: old });
    await receiver(writer, { retentionMs: 60_000 });
    await eventually(async () => (await countOlderThan(writer, cutoff)) === 0);
  });

  it('reads a row that committed after a row with a higher id', async () => {
    const table = `outbox_late_${suffix}`;
    const writer = await open();
    await migrateOutbox(writer, table, 'up');
    try {
      const reader = await receiver(await open(), { tableName: table, batchSize: 10 });
      const now = Date.now();
      await insertRow(writer, table, { id: 3, storeKey: 'payment:3', createdAt: now });
      await eventually(() => reader.received.length === 1);
      await insertRow(writer, table, { id: 1, storeKey: 'payment:1', createdAt: now });
      await insertRow(writer, table, { id: 2, storeKey: 'payment:2', createdAt: now });
      await eventually(() => reader.received.length === 3);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(reader.received.map((relayed) => relayed.storeKey)).toEqual(['payment:3', 'payment:1', 'payment:2']);
    } finally {
      await Promise.all(bed.relays.splice(0).map((relay) => relay.stop()));
      await migrateOutbox(writer, table, 'down');
    }
  });

  it('creates the table with the shipped migrations (ids never reused, indexed by age, a reply column) and drops it', async () => {
    const table = `outbox_migrated_${suffix}`;
    const dataSource = await open();
    expect(new CreateMcpFsmOutbox1764720000000().name).toBe('CreateMcpFsmOutbox1764720000000');
    expect(new AddMcpFsmOutboxReply1765584000000().name).toBe('AddMcpFsmOutboxReply1765584000000');
    await migrateOutbox(dataSource, table, 'up');
    const runner = dataSource.createQueryRunner();
    try {
      const created = await runner.getTable(table);
      expect(created?.columns.map((column) => column.name).sort()).toEqual([
        'created_at',
        'id',
        'machine',
        'origin',
        'reply',
        'state',
        'store_key',
      ]);
      expect(created?.findColumnByName('reply')?.isNullable).toBe(true);
      expect(created?.indices.some((index) => index.columnNames.join() === 'created_at')).toBe(true);
      await insertRow(dataSource, table, { storeKey: 'payment:1', createdAt: 1 });
      await insertRow(dataSource, table, { storeKey: 'payment:2', createdAt: 1 });
      await dataSource.query(`DELETE FROM ${quote(table)}`);
      await insertRow(dataSource, table, { storeKey: 'payment:3', createdAt: 1 });
      const [row] = await dataSource.query(`SELECT id FROM ${quote(table)}`);
      expect(Number(row.id)).toBe(3);
      await migrateOutbox(dataSource, table, 'down');
      expect(await runner.hasTable(table)).toBe(false);
    } finally {
      await runner.release();
    }
  });

  it('fails to start, naming the migration, when the table is missing', async () => {
    const relay = new OutboxTransitionRelay(await open(), { tableName: `missing_${suffix}` });
    const failure = relay.start(() => undefined);
    await expect(failure).rejects.toThrow(`OutboxTransitionRelay: table missing_${suffix} is not ready (`);
    await expect(failure).rejects.toThrow(
      /\)\. Run the migrations CreateMcpFsmOutbox1764720000000 and AddMcpFsmOutboxReply1765584000000 \(createOutboxMigration and createOutboxReplyMigration for a custom table name\)\.$/,
    );
    expect(outboxSchemaNotReady('t', new Error('no such table'))).toBe(
      'OutboxTransitionRelay: table t is not ready (no such table). Run the migrations CreateMcpFsmOutbox1764720000000 and AddMcpFsmOutboxReply1765584000000 (createOutboxMigration and createOutboxReplyMigration for a custom table name).',
    );
  });

  if (target.url) {
    it('keeps polling while the database is away, logs it once, and delivers what it missed once it is back', async () => {
      const proxy = await startProxy(target.url!);
      try {
        const direct = await receiver(await open());
        const behindProxy = await receiver(await open(proxy.rewrite(target.url!)), { pollIntervalMs: 50 });
        const failed = new RegExp(`^Transition relay cannot poll ${outbox} \\(.*\\); trying again every 50 ms\\.$`);

        await proxy.stop();
        direct.relay.publish(transition('payment:while-away'));
        await eventually(() => bed.logs.matching('warn', failed).length === 1, 5000);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(bed.logs.matching('warn', failed)).toHaveLength(1);
        expect(behindProxy.received).toEqual([]);

        await proxy.start();
        await eventually(() => behindProxy.received.length === 1, 10_000);
        expect(behindProxy.received).toEqual([transition('payment:while-away')]);
        await eventually(() => bed.logs.matching('log', /polls/).length > 0);
        expect(bed.logs.matching('log', /polls/)).toEqual([outboxPollRecovered(outbox)]);
        expect(outboxPollFailed('t', new Error('ECONNREFUSED'), 200)).toBe(
          'Transition relay cannot poll t (ECONNREFUSED); trying again every 200 ms.',
        );
      } finally {
        await bed.close();
        await proxy.stop();
      }
    });
  }
});
