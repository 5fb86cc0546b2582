import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { InMemoryFsmStateStore } from '../../lib/index.js';
import type { AtomicFsmStateStore } from '../../lib/stores/atomic-fsm-state-store.interface.js';
import type { TransactionalFsmStateStore } from '../../lib/stores/transactional-fsm-state-store.interface.js';
import type { FsmEventLog, WorkflowEventReceipt } from '../../lib/stores/workflow-event.interface.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';

type EventStore = AtomicFsmStateStore & FsmEventLog & Partial<TransactionalFsmStateStore>;

const snapshot = (state: string) => ({ state, updatedAt: new Date().toISOString() });
const receipt = (idempotencyKey: string): WorkflowEventReceipt => ({ idempotencyKey, machine: 'pay', event: 'VOID', actor: 'psp' });

/** The receipt cases every store that keeps the receipts of outside events passes. */
function describeEventContract(name: string, make: () => EventStore) {
  describe(`${name}: receipts of outside events`, () => {
    let store: EventStore;
    let key: string;
    const leased = async () => {
      const token = randomUUID();
      expect(await store.claim({ key, token, leaseMs: 60_000 })).toMatchObject({ status: 'claimed' });
      return token;
    };

    beforeEach(async () => {
      store = make();
      key = `pay:${randomUUID()}`;
      await store.create(key, snapshot('authorized'));
    });

    it('keeps the receipt a commit writes with the state, per instance', async () => {
      expect(await store.hasEvent(key, 'evt_1')).toBe(false);
      expect(await store.commit(key, await leased(), { snapshot: snapshot('voided'), event: receipt('evt_1') })).toBe(true);
      expect(await store.hasEvent(key, 'evt_1')).toBe(true);
      expect(await store.hasEvent(key, 'evt_2')).toBe(false);
      expect(await store.hasEvent(`pay:${randomUUID()}`, 'evt_1')).toBe(false);
    });

    it('refuses a whole commit whose receipt is already kept: the state stays as the first one left it', async () => {
      await store.commit(key, await leased(), { snapshot: snapshot('held'), event: receipt('evt_1') });
      const token = await leased();
      await expect(store.commit(key, token, { snapshot: snapshot('voided'), event: receipt('evt_1') })).rejects.toThrow(
        'An outside event with idempotency key "evt_1" was already applied to workflow instance',
      );
      expect(await store.load(key)).toMatchObject({ state: 'held' });
      await store.release(key, token);
      expect(await store.commit(key, await leased(), { snapshot: snapshot('voided'), event: receipt('evt_2') })).toBe(true);
      expect(await store.load(key)).toMatchObject({ state: 'voided' });
    });

    it('writes no receipt when the commit lost its lease', async () => {
      expect(await store.commit(key, 'not-the-lease', { snapshot: snapshot('voided'), event: receipt('evt_1') })).toBe(false);
      expect(await store.hasEvent(key, 'evt_1')).toBe(false);
    });

    it('writes the receipt of a transactional commit with it, and refuses a second one, rolling the state back', async () => {
      if (!store.beginTransaction) return;
      const first = await store.beginTransaction();
      expect(await first.lock({ key })).toMatchObject({ status: 'claimed' });
      await first.commit(key, { snapshot: snapshot('held'), event: receipt('evt_1') });
      expect(await store.hasEvent(key, 'evt_1')).toBe(true);
      const second = await store.beginTransaction();
      expect(await second.lock({ key })).toMatchObject({ status: 'claimed' });
      await expect(second.commit(key, { snapshot: snapshot('voided'), event: receipt('evt_1') })).rejects.toThrow('already applied');
      await second.rollback();
      expect(await store.load(key)).toMatchObject({ state: 'held' });
    });
  });
}

describeEventContract('InMemoryFsmStateStore', () => new InMemoryFsmStateStore());

/** Store tables unique to this run, made by the shipped migrations (the receipt table with them) and dropped after. */
function describeTypeOrm(name: string, options: DataSourceOptions | undefined) {
  (options ? describe : describe.skip)(`TypeOrmFsmStateStore on ${name}`, () => {
    const prefix = `fsm_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    const tables = { tableName: `${prefix}_state`, historyTableName: `${prefix}_transition`, eventTableName: `${prefix}_event` };
    let source: DataSource;
    beforeAll(async () => {
      source = new DataSource(options!);
      await source.initialize();
      await createStoreTables(source, tables);
    }, 60_000);
    afterAll(async () => {
      if (!source?.isInitialized) return;
      await dropStoreTables(source, tables);
      await source.destroy();
    }, 60_000);

    it('finds the receipt table, and names the migration when it is missing', async () => {
      await new TypeOrmFsmStateStore(source, tables).assertEventSchema();
      await expect(new TypeOrmFsmStateStore(source, { ...tables, eventTableName: `${prefix}_none` }).assertEventSchema()).rejects.toThrow(
        'Run its migration: CreateMcpFsmEvent1766620800000',
      );
    });

    describeEventContract(name, () => new TypeOrmFsmStateStore(source, tables));
  });
}

const directory = mkdtempSync(join(tmpdir(), 'fsm-events-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
describeTypeOrm('SQLite', { type: 'better-sqlite3', database: join(directory, 'events.sqlite'), enableWAL: true });
const pg = process.env.TEST_POSTGRES_URL;
describeTypeOrm('PostgreSQL', pg ? { type: 'postgres', url: pg } : undefined);
const mysql = process.env.TEST_MYSQL_URL;
describeTypeOrm('MySQL/MariaDB', mysql ? { type: mysql.startsWith('mariadb:') ? 'mariadb' : 'mysql', url: mysql } : undefined);
