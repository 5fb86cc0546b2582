import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { InMemoryFsmStateStore } from '../../lib/index.js';
import type { AtomicFsmStateStore } from '../../lib/stores/atomic-fsm-state-store.interface.js';
import type { TransactionalFsmStateStore } from '../../lib/stores/transactional-fsm-state-store.interface.js';
import type { WorkflowTimerChanges, FsmTimerStore } from '../../lib/stores/workflow-timer.interface.js';
import {
  TypeOrmFsmStateStore,
  createWorkflowApprovalMigration,
  createWorkflowContextMigration,
  createWorkflowStateMigration,
  createWorkflowTeamMigration,
  createWorkflowTimerMigration,
} from '../../lib/typeorm.js';

type TimerStore = AtomicFsmStateStore & FsmTimerStore & Partial<TransactionalFsmStateStore>;

const snapshot = (state: string) => ({ state, updatedAt: new Date().toISOString() });
const timer = (id: string, dueAt: number) => ({ id, event: id, dueAt });
const changes = (
  schedule: ReturnType<typeof timer>[],
  cancel: string[] = [],
  fired?: { id: string; token: string },
): WorkflowTimerChanges => ({
  machine: 'pay',
  schedule,
  cancel,
  ...(fired ? { fired } : {}),
});

/** The timer cases every store that keeps timers passes. */
function describeTimerContract(name: string, make: () => TimerStore) {
  describe(`${name}: durable timers`, () => {
    let store: TimerStore;
    let key: string;
    const claim = (now: number, limit = 10, token = randomUUID(), leaseMs = 60_000) => store.claimDueTimers({ now, limit, token, leaseMs });
    const leased = async (state: string) => {
      const token = randomUUID();
      const result = await store.claim({ key, token, leaseMs: 60_000 });
      expect(result).toMatchObject({ status: 'claimed' });
      return { token, state };
    };

    beforeEach(async () => {
      store = make();
      key = `pay:${randomUUID()}`;
      await store.create(key, snapshot('authorized'), undefined, changes([timer('t1', 1_000), timer('t2', 5_000)]));
    });

    it('keeps the timers a create schedules, earliest first', async () => {
      expect(await store.pendingTimers(key)).toEqual([
        { id: 't1', event: 't1', dueAt: 1_000, attempts: 0 },
        { id: 't2', event: 't2', dueAt: 5_000, attempts: 0 },
      ]);
    });

    it("answers many instances' pending timers at once, earliest first, leaving out those with none", async () => {
      const [other, none] = [`pay:${randomUUID()}`, `pay:${randomUUID()}`];
      await store.create(other, snapshot('authorized'), undefined, changes([timer('t9', 500)]));
      await store.create(none, snapshot('authorized'));
      const pending = await store.pendingTimersOf!([key, other, none]);
      expect([...pending.keys()].sort()).toEqual([key, other].sort());
      expect(pending.get(key)).toEqual(await store.pendingTimers(key));
      expect(pending.get(other)).toEqual([{ id: 't9', event: 't9', dueAt: 500, attempts: 0 }]);
      expect(await store.pendingTimersOf!([])).toEqual(new Map());
    });

    it('claims only due timers, each once until its claim lapses', async () => {
      const mine = (timers: Awaited<ReturnType<typeof claim>>) => timers.filter((due) => due.key === key);
      expect(mine(await claim(999))).toEqual([]);
      expect(mine(await claim(1_000))).toEqual([{ key, machine: 'pay', id: 't1', event: 't1', attempts: 0 }]);
      expect(mine(await claim(2_000))).toEqual([]);
      // The claim lapsed (1_000 + 60_000): another process may take it again.
      expect(
        mine(await claim(61_001))
          .map((due) => due.id)
          .sort(),
      ).toEqual(['t1', 't2']);
    });

    it('cancels and schedules in the commit that stores the state', async () => {
      const { token } = await leased('authorized');
      expect(await store.commit(key, token, { snapshot: snapshot('captured'), timers: changes([timer('t3', 9_000)], ['t1', 't2']) })).toBe(
        true,
      );
      expect(await store.pendingTimers(key)).toEqual([{ id: 't3', event: 't3', dueAt: 9_000, attempts: 0 }]);
    });

    it('reschedules a timer of the same id anew: due at its new time, unclaimed, no attempts counted', async () => {
      const [claimed] = (await claim(1_000)).filter((due) => due.key === key);
      expect(claimed).toMatchObject({ id: 't1' });
      const { token } = await leased('authorized');
      const rescheduled = changes([timer('t1', 7_000), timer('t2', 8_000)], ['t1', 't2']);
      expect(await store.commit(key, token, { snapshot: snapshot('authorized'), timers: rescheduled })).toBe(true);
      expect(await store.pendingTimers(key)).toEqual([
        { id: 't1', event: 't1', dueAt: 7_000, attempts: 0 },
        { id: 't2', event: 't2', dueAt: 8_000, attempts: 0 },
      ]);
      expect((await claim(7_000)).filter((due) => due.key === key).map(({ id }) => id)).toEqual(['t1']);
    });

    it('writes no timer when the commit lost its lease', async () => {
      expect(await store.commit(key, 'not-the-lease', { snapshot: snapshot('captured'), timers: changes([], ['t1', 't2']) })).toBe(false);
      expect((await store.pendingTimers(key)).map((pending) => pending.id).sort()).toEqual(['t1', 't2']);
    });

    it('deletes the fired timer under its claim token, and refuses the whole commit when another claim holds it', async () => {
      const first = randomUUID();
      await claim(1_000, 10, first, 1);
      const second = randomUUID();
      expect((await claim(1_001, 10, second)).some((due) => due.key === key && due.id === 't1')).toBe(true);
      const { token } = await leased('authorized');
      await expect(
        store.commit(key, token, { snapshot: snapshot('voided'), timers: changes([], ['t2'], { id: 't1', token: first }) }),
      ).rejects.toThrow('Timer "t1" of workflow instance');
      expect(await store.load(key)).toMatchObject({ state: 'authorized' });
      expect((await store.pendingTimers(key)).map((pending) => pending.id).sort()).toEqual(['t1', 't2']);
      await store.release(key, token);
      const again = await leased('authorized');
      expect(
        await store.commit(key, again.token, { snapshot: snapshot('voided'), timers: changes([], ['t2'], { id: 't1', token: second }) }),
      ).toBe(true);
      expect(await store.pendingTimers(key)).toEqual([]);
      expect(await store.load(key)).toMatchObject({ state: 'voided' });
    });

    it('retries a claimed timer later, counting the attempt, and drops one only under its claim', async () => {
      const token = randomUUID();
      await claim(1_000, 10, token);
      await store.retryTimer(key, 't1', token, 3_000);
      expect((await claim(2_999)).some((due) => due.key === key)).toBe(false);
      const retried = randomUUID();
      expect((await claim(3_000, 10, retried)).find((due) => due.key === key)).toMatchObject({ id: 't1', attempts: 1 });
      expect((await store.pendingTimers(key)).find((pending) => pending.id === 't1')).toMatchObject({ attempts: 1 });
      await store.dropTimer(key, 't1', 'someone-else');
      expect((await store.pendingTimers(key)).map((pending) => pending.id).sort()).toEqual(['t1', 't2']);
      await store.dropTimer(key, 't1', retried);
      expect((await store.pendingTimers(key)).map((pending) => pending.id)).toEqual(['t2']);
    });

    it('writes the timers of a transactional commit with it, or none when it rolls back', async () => {
      if (!store.beginTransaction) return;
      const rolledBack = await store.beginTransaction();
      await rolledBack.lock({ key });
      await rolledBack.rollback();
      expect((await store.pendingTimers(key)).map((pending) => pending.id).sort()).toEqual(['t1', 't2']);
      const transaction = await store.beginTransaction();
      expect(await transaction.lock({ key })).toMatchObject({ status: 'claimed' });
      await transaction.commit(key, { snapshot: snapshot('captured'), timers: changes([], ['t1', 't2']) });
      expect(await store.pendingTimers(key)).toEqual([]);
    });

    it('deletes an instance with its timers, in the same write; other instances keep theirs', async () => {
      const other = `pay:${randomUUID()}`;
      await store.create(other, snapshot('authorized'), undefined, changes([timer('t1', 1_000)]));
      await store.delete!([key]);
      expect(await store.pendingTimers(key)).toEqual([]);
      expect(await store.pendingTimers(other)).toEqual([{ id: 't1', event: 't1', dueAt: 1_000, attempts: 0 }]);
      expect((await claim(10_000, 1_000)).filter((due) => due.key === key)).toEqual([]);
    });

    it('sweeps finished instances with their timers, and keeps those of the instances it keeps', async () => {
      const finished = `pay:${randomUUID()}`;
      await store.create(finished, { state: 'voided', updatedAt: new Date(1_000).toISOString() }, undefined, changes([timer('t9', 2_000)]));
      const swept = await store.sweep!({
        finished: { machines: [{ machine: 'pay', states: ['voided'] }], before: Date.now() },
        limit: 1_000,
      });
      expect(swept).toBeGreaterThanOrEqual(1);
      expect(await store.load(finished)).toBeUndefined();
      expect(await store.pendingTimers(finished)).toEqual([]);
      expect((await claim(10_000, 1_000)).filter((due) => due.key === finished)).toEqual([]);
      expect((await store.pendingTimers(key)).map((pending) => pending.id)).toEqual(['t1', 't2']);
    });

    it('claims a batch of at most `limit` timers, earliest first', async () => {
      const other = `pay:${randomUUID()}`;
      await store.create(other, snapshot('authorized'), undefined, changes([timer('a', 10), timer('b', 20), timer('c', 30)]));
      const due = (await claim(100, 2)).map((claimed) => `${claimed.key === other ? 'other' : 'key'}:${claimed.id}`);
      expect(due).toHaveLength(2);
      expect(due).toEqual(['other:a', 'other:b']);
    });
  });
}

describeTimerContract('InMemoryFsmStateStore', () => new InMemoryFsmStateStore());

/** A DataSource on timer and state tables unique to this run, made by the shipped migrations and dropped after. */
function describeTypeOrm(name: string, options: DataSourceOptions | undefined) {
  (options ? describe : describe.skip)(`TypeOrmFsmStateStore on ${name}`, () => {
    const prefix = `fsm_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    const tables = { tableName: `${prefix}_state`, historyTableName: `${prefix}_transition`, timerTableName: `${prefix}_timer` };
    let source: DataSource;
    beforeAll(async () => {
      source = new DataSource({
        ...options!,
        migrations: [
          createWorkflowStateMigration(tables),
          createWorkflowContextMigration(tables),
          createWorkflowTeamMigration(tables),
          createWorkflowApprovalMigration(tables),
          createWorkflowTimerMigration(tables),
        ],
        migrationsTableName: `${prefix}_migrations`,
      } as DataSourceOptions);
      await source.initialize();
      await source.runMigrations();
    }, 60_000);
    afterAll(async () => {
      if (!source?.isInitialized) return;
      for (let undo = 0; undo < 5; undo++) await source.undoLastMigration();
      await source.query(`DROP TABLE ${prefix}_migrations`);
      await source.destroy();
    }, 60_000);

    it('finds the timer table at bootstrap, and names the migration when it is missing', async () => {
      await new TypeOrmFsmStateStore(source, tables).assertTimerSchema();
      await expect(new TypeOrmFsmStateStore(source, { ...tables, timerTableName: `${prefix}_none` }).assertTimerSchema()).rejects.toThrow(
        'Run its migration: CreateMcpFsmTimer1766534400000',
      );
    });

    it('deletes the timers another process wrote once its timer table is checked (a machine has `after`)', async () => {
      const key = `pay:${randomUUID()}`;
      await new TypeOrmFsmStateStore(source, tables).create(key, snapshot('authorized'), undefined, changes([timer('t1', 1_000)]));
      const other = new TypeOrmFsmStateStore(source, tables);
      await other.assertTimerSchema();
      await other.delete([key]);
      expect(await other.pendingTimers(key)).toEqual([]);
    });

    it('deletes instances without touching the timer table while no machine has `after` (a 0.3 database without the timer migration)', async () => {
      const store = new TypeOrmFsmStateStore(source, { ...tables, timerTableName: `${prefix}_none` });
      const key = `pay:${randomUUID()}`;
      await store.create(key, snapshot('authorized'));
      await store.delete([key]);
      expect(await store.load(key)).toBeUndefined();
    });

    it('starts many instances with timers at once, none refused by a lock another start holds', async () => {
      const store = new TypeOrmFsmStateStore(source, tables);
      const keys = Array.from({ length: 40 }, () => `pay:${randomUUID()}`);
      // Due long after the other cases' claims look, so they never take these.
      const ttl = timer('ttl', Date.UTC(2100, 0, 1));
      const transactional = keys.slice(20).map(async (key) => {
        const transaction = await store.beginTransaction();
        try {
          await transaction.commit(key, { snapshot: snapshot('authorized'), timers: changes([ttl]) }, { insert: true });
        } catch (error) {
          await transaction.rollback();
          throw error;
        }
      });
      const plain = keys.slice(0, 20).map((key) => store.create(key, snapshot('authorized'), undefined, changes([ttl])));
      const settled = await Promise.allSettled([...plain, ...transactional]);
      expect(settled.filter((result) => result.status === 'rejected')).toEqual([]);
      for (const key of keys) expect((await store.pendingTimers(key)).map(({ id }) => id)).toEqual(['ttl']);
    });

    describeTimerContract(name, () => new TypeOrmFsmStateStore(source, tables));
  });
}

const directory = mkdtempSync(join(tmpdir(), 'fsm-timers-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
describeTypeOrm('SQLite', { type: 'better-sqlite3', database: join(directory, 'timers.sqlite'), enableWAL: true });
const pg = process.env.TEST_POSTGRES_URL;
describeTypeOrm('PostgreSQL', pg ? { type: 'postgres', url: pg } : undefined);
const mysql = process.env.TEST_MYSQL_URL;
describeTypeOrm('MySQL/MariaDB', mysql ? { type: mysql.startsWith('mariadb:') ? 'mariadb' : 'mysql', url: mysql } : undefined);
