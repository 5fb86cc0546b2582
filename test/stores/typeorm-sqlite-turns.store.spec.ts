import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { createStoreTables } from '../utils/store-tables.js';

const TIMEOUT_MS = 300;
const tables = { tableName: 'turn_state', historyTableName: 'turn_history' };
const snapshot = (state: string) => ({ state, updatedAt: new Date().toISOString() });
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('TypeOrmFsmStateStore on SQLite: one connection, taken in turns', () => {
  const directory = mkdtempSync(join(tmpdir(), 'fsm-turns-'));
  let dataSource: DataSource;
  let store: TypeOrmFsmStateStore;

  beforeAll(async () => {
    dataSource = new DataSource({ type: 'better-sqlite3', database: join(directory, 'turns.sqlite'), enableWAL: true });
    await dataSource.initialize();
    await createStoreTables(dataSource, tables);
    store = new TypeOrmFsmStateStore(dataSource, { ...tables, timeoutMs: TIMEOUT_MS });
  });

  afterAll(async () => {
    await dataSource.destroy();
    rmSync(directory, { recursive: true, force: true });
  });

  it("never lets a read see an open transaction's writes: the read waits for its end", async () => {
    const handle = `invoice:${randomUUID()}`;
    await store.create(handle, snapshot('draft'));
    const transaction = await store.beginTransaction();
    expect(await transaction.lock({ key: handle, allowedStates: ['draft'] })).toMatchObject({ status: 'claimed' });
    await dataSource.manager.query(`UPDATE ${tables.tableName} SET state = 'review' WHERE handle = ?`, [handle]);
    let loaded: string | undefined;
    const loading = store.load(handle).then((found) => (loaded = found?.state));
    await tick();
    expect(loaded).toBeUndefined();
    await transaction.rollback();
    await loading;
    expect(loaded).toBe('draft');
  });

  it('refuses the commit of a transaction open longer than timeoutMs, rolls it back, and bounds the wait of the others', async () => {
    const handle = `invoice:${randomUUID()}`;
    await store.create(handle, snapshot('draft'));
    const transaction = await store.beginTransaction();
    expect(await transaction.lock({ key: handle, allowedStates: ['draft'] })).toMatchObject({ status: 'claimed' });
    await expect(store.load(handle)).rejects.toThrow(
      `TypeOrmFsmStateStore: load did not finish within timeoutMs (${TIMEOUT_MS} ms); its connection is not reused.`,
    );
    await expect(store.beginTransaction()).rejects.toThrow(
      `TypeOrmFsmStateStore: beginTransaction did not finish within timeoutMs (${TIMEOUT_MS} ms)`,
    );
    await expect(transaction.commit(handle, { snapshot: snapshot('review') })).rejects.toThrow(
      `TypeOrmFsmStateStore: the transaction was still open after timeoutMs (${TIMEOUT_MS} ms) and was rolled back`,
    );
    await transaction.rollback();
    expect((await store.load(handle))?.state).toBe('draft');
    const next = await store.beginTransaction();
    expect(await next.lock({ key: handle, allowedStates: ['draft'] })).toMatchObject({ status: 'claimed' });
    await next.commit(handle, { snapshot: snapshot('review') });
    expect((await store.load(handle))?.state).toBe('review');
  });

  it('rejects a timeoutMs that is not a positive whole number of milliseconds', () => {
    expect(() => new TypeOrmFsmStateStore(dataSource, { timeoutMs: 0 })).toThrow(
      'TypeOrmFsmStateStore: timeoutMs must be a whole number of milliseconds from 1 to 2147483647; got 0.',
    );
    expect(() => new TypeOrmFsmStateStore(dataSource, { timeoutMs: 1.5 })).toThrow('; got 1.5.');
  });
});
