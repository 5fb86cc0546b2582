import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { describeNetworkedTargets, uniqueSuffix } from '../utils/databases.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';

const TIMEOUT_MS = 2000;
/** Scheduling slack on a loaded 2-core CI machine, on top of the bounds the store promises. */
const SLACK_MS = 1500;

const snapshot = (state: string) => ({ state, updatedAt: new Date().toISOString() });

/** Tries to lock `handle` through `store` until it is claimed; answers when (ms since `since`), or throws after `withinMs`. */
async function lockedBy(store: TypeOrmFsmStateStore, handle: string, since: number, withinMs: number) {
  for (let attempt = 0; attempt < 100 && Date.now() - since < withinMs; attempt++) {
    const transaction = await store.beginTransaction();
    const result = await transaction.lock({ key: handle, allowedStates: ['draft'] });
    if (result.status === 'claimed') return { transaction, afterMs: Date.now() - since };
    expect(result).toEqual({ status: 'busy', state: 'draft' });
    await transaction.rollback();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${handle} was not free within ${withinMs} ms`);
}

describeNetworkedTargets('store partition')('TypeOrmFsmStateStore on $name through a partitioned network', ({ url, options }) => {
  const tables = { tableName: `part_state_${uniqueSuffix()}`, historyTableName: `part_history_${uniqueSuffix()}` };
  let proxy: TcpProxy;
  let cut: DataSource;
  let direct: DataSource;
  let storeA: TypeOrmFsmStateStore;
  let storeB: TypeOrmFsmStateStore;

  /** A draft invoice that a transaction of store A holds the lock of, when the network to A is cut. */
  const heldThroughPartition = async () => {
    const handle = `invoice:${randomUUID()}`;
    await storeB.create(handle, snapshot('draft'));
    const held = await storeA.beginTransaction();
    expect(await held.lock({ key: handle, allowedStates: ['draft'] })).toMatchObject({ status: 'claimed' });
    proxy.partition();
    return { handle, held, partitionedAt: Date.now() };
  };

  beforeAll(async () => {
    proxy = await startProxy(url!);
    direct = new DataSource(options());
    cut = new DataSource(options(proxy.rewrite(url!)));
    await Promise.all([direct.initialize(), cut.initialize()]);
    await createStoreTables(direct, tables);
    storeA = new TypeOrmFsmStateStore(cut, { ...tables, history: true, timeoutMs: TIMEOUT_MS });
    storeB = new TypeOrmFsmStateStore(direct, { ...tables, history: true, timeoutMs: TIMEOUT_MS });
  });

  afterEach(() => proxy.heal());

  afterAll(async () => {
    await dropStoreTables(direct, tables);
    await Promise.all([direct.destroy(), cut.destroy()]);
    await proxy.stop();
  });

  it("frees a partitioned transaction's row lock within timeoutMs, and its commit fails with the deadline", async () => {
    const { handle, held, partitionedAt } = await heldThroughPartition();
    const commit = held.commit(handle, { snapshot: snapshot('review') }).then(
      () => ({ error: undefined, afterMs: Date.now() - partitionedAt }),
      (error: Error) => ({ error, afterMs: Date.now() - partitionedAt }),
    );
    const taken = await lockedBy(storeB, handle, partitionedAt, TIMEOUT_MS + 1000);
    expect(taken.afterMs).toBeLessThanOrEqual(TIMEOUT_MS + 1000);

    const failed = await commit;
    expect(failed.error?.message).toBe(
      `TypeOrmFsmStateStore: the transaction was still open after timeoutMs (${TIMEOUT_MS} ms) and was rolled back; a transactional call's lock, handler and commit must finish within timeoutMs.`,
    );
    expect(failed.afterMs).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);
    await held.rollback();

    await taken.transaction.commit(handle, { snapshot: snapshot('approved') });
    expect((await storeB.load(handle))?.state).toBe('approved');
  });

  it("fails a handler's query that the partition holds up once the transaction's deadline passes", async () => {
    const { handle, held, partitionedAt } = await heldThroughPartition();
    // pg reports its own "Connection terminated"; mysql2 fails the query with the store's reason.
    await expect((held.manager as EntityManager).query('SELECT 1')).rejects.toThrow(
      /^(Connection terminated|TypeOrmFsmStateStore: the transaction was still open after timeoutMs)/,
    );
    expect(Date.now() - partitionedAt).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);
    await held.rollback();
    const taken = await lockedBy(storeB, handle, partitionedAt, TIMEOUT_MS + 1000);
    await taken.transaction.rollback();
  });

  it('fails an operation cut off by the partition within timeoutMs, and does not reuse its connection', async () => {
    const handle = `invoice:${randomUUID()}`;
    await storeB.create(handle, snapshot('draft'));
    proxy.partition();
    const startedAt = Date.now();
    await expect(storeA.claim({ key: handle, allowedStates: ['draft'], token: 't', leaseMs: 60_000 })).rejects.toThrow(
      `TypeOrmFsmStateStore: claim did not finish within timeoutMs (${TIMEOUT_MS} ms); its connection is not reused.`,
    );
    expect(Date.now() - startedAt).toBeLessThanOrEqual(TIMEOUT_MS + SLACK_MS);

    proxy.heal();
    // Every pooled connection answers again: none was left mid-statement or inside a transaction.
    const loads = await Promise.all(Array.from({ length: 12 }, () => storeA.load(handle)));
    expect(loads.every((loaded) => loaded?.state === 'draft')).toBe(true);
    const transaction = await storeA.beginTransaction();
    expect(await transaction.lock({ key: handle, allowedStates: ['draft'] })).toMatchObject({ status: 'claimed' });
    await transaction.commit(handle, { snapshot: snapshot('review') });
    expect((await storeB.load(handle))?.state).toBe('review');
  });
});
