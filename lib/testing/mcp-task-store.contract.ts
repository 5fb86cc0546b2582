/// <reference types="jest" />
import { randomUUID } from 'node:crypto';
import type { McpTaskRecord, McpTaskStore } from '../stores/mcp-task-store.interface.js';
import { MCP_TASK_ACTIVE_STATUSES } from '../stores/mcp-task-store.interface.js';

/** One task store under test, a second one on the same storage (another process), and how to dispose of them. */
export interface McpTaskStoreFixture {
  store: McpTaskStore;
  /** A store sharing `store`'s tasks through its own connections (the same instance for an in-memory store). */
  peer: McpTaskStore;
  cleanup: () => Promise<void>;
}

/** Makes a task store under test. */
export type McpTaskStoreFactory = () => Promise<McpTaskStoreFixture>;

/** A working task of `requester`, created at `createdAt`, kept `ttlMs`, with nested arguments. */
export function taskRecord(requester: string, createdAt: number, ttlMs = 60_000): McpTaskRecord {
  return {
    taskId: randomUUID(),
    requester,
    sessionId: randomUUID(),
    serverId: 'main',
    request: { name: 'payment.refund', arguments: { paymentId: 'pay_1', amount: 12.5, note: 'héllo 🚀', tags: ['a', null] } },
    status: 'working',
    ttlMs,
    pollIntervalMs: 1_000,
    createdAt,
    updatedAt: createdAt,
    expiresAt: createdAt + ttlMs,
  };
}

/** The cases every task store passes: run them with `factory` making the store. */
export function describeMcpTaskStoreContract(name: string, factory: McpTaskStoreFactory): void {
  describe(`${name}: McpTaskStore contract`, () => {
    let fixture: McpTaskStoreFixture;
    let store: McpTaskStore;
    // Every case has requesters of its own: stores on a shared database keep the rows of other cases.
    let alice: string;
    let bob: string;

    beforeEach(async () => {
      fixture = await factory();
      store = fixture.store;
      alice = `alice-${randomUUID()}`;
      bob = `bob-${randomUUID()}`;
    });
    afterEach(() => fixture.cleanup());

    it('round-trips a record with nested arguments, seen by another process', async () => {
      const record = taskRecord(alice, 1_764_633_600_123);
      const anonymous = { ...taskRecord(bob, 1_764_633_600_456), sessionId: undefined };
      delete anonymous.sessionId;
      await store.create(record);
      await store.create(anonymous);
      expect(await fixture.peer.find(record.taskId)).toEqual(record);
      expect(await fixture.peer.find(anonymous.taskId)).toEqual(anonymous);
      expect(await store.find(randomUUID())).toBeUndefined();
    });

    it('completes a working task once, with its result, and never moves an ended one', async () => {
      const record = taskRecord(alice, 1_000);
      await store.create(record);
      const result = { content: [{ type: 'text', text: 'refunded ✓' }], structuredContent: { amount: 12.5 }, isError: false };
      const done = await store.update(record.taskId, { status: 'completed', result }, MCP_TASK_ACTIVE_STATUSES, 2_000);
      expect(done).toMatchObject({ status: 'completed', result, updatedAt: 2_000, createdAt: 1_000 });
      expect(await fixture.peer.update(record.taskId, { status: 'cancelled' }, MCP_TASK_ACTIVE_STATUSES, 2_500)).toBeUndefined();
      expect(await store.find(record.taskId)).toEqual(done);
    });

    it('lets exactly one of concurrent updates from working apply', async () => {
      const record = taskRecord(alice, 1_000);
      await store.create(record);
      const results = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          (i % 2 ? fixture.peer : store).update(
            record.taskId,
            { status: 'completed', result: { content: [], n: i } },
            ['working'],
            2_000 + i,
          ),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    it('keeps the status message, sets and clears the input, and fails with an error', async () => {
      const record = taskRecord(alice, 1_000);
      await store.create(record);
      const waiting = await store.update(record.taskId, { status: 'working', statusMessage: 'Waits for approval' }, ['working'], 1_100);
      expect(waiting).toMatchObject({ status: 'working', statusMessage: 'Waits for approval' });
      const input = { requests: { confirm: { method: 'elicitation/create', params: { message: 'Sure?' } } }, answered: {} };
      expect(await store.update(record.taskId, { status: 'input_required', input }, ['working'], 1_200)).toMatchObject({ input });
      const resumed = await store.update(record.taskId, { status: 'working', input: null }, ['input_required'], 1_300);
      expect(resumed?.input).toBeUndefined();
      expect(resumed?.statusMessage).toBe('Waits for approval');
      const cleared = await store.update(record.taskId, { status: 'working', statusMessage: null }, ['working'], 1_350);
      expect(cleared?.statusMessage).toBeUndefined();
      const error = { code: -32603, message: 'Internal error', data: { reason: 'boom' } };
      expect(await fixture.peer.update(record.taskId, { status: 'failed', error }, MCP_TASK_ACTIVE_STATUSES, 1_400)).toMatchObject({
        status: 'failed',
        error,
      });
    });

    it('does not update an expired task', async () => {
      const record = taskRecord(alice, 1_000, 500);
      await store.create(record);
      expect(await store.update(record.taskId, { status: 'cancelled' }, MCP_TASK_ACTIVE_STATUSES, 1_500)).toBeUndefined();
    });

    it("lists a requester's own live tasks, oldest first, in pages", async () => {
      const mine = [taskRecord(alice, 3_000), taskRecord(alice, 1_000), taskRecord(alice, 2_000)];
      const expired = taskRecord(alice, 100, 200);
      for (const task of [...mine, expired, taskRecord(bob, 1_500)]) await store.create(task);
      const first = await fixture.peer.list(alice, 3_500, 2);
      expect(first.map((task) => task.createdAt)).toEqual([1_000, 2_000]);
      const rest = await store.list(alice, 3_500, 2, { createdAt: first[1].createdAt, taskId: first[1].taskId });
      expect(rest.map((task) => task.createdAt)).toEqual([3_000]);
      expect(await store.list(alice, 3_500, 0)).toEqual([]);
    });

    it('creates a task under a cap only while its requester holds fewer active ones (ended, expired and others’ do not count)', async () => {
      const [a, b, c] = [taskRecord(alice, 1_000), taskRecord(alice, 1_000), taskRecord(alice, 1_000)];
      for (const task of [a, b, c, taskRecord(bob, 1_000), taskRecord(alice, 1_000, 10)]) expect(await store.create(task)).toBe(true);
      await store.update(c.taskId, { status: 'completed', result: { content: [] } }, ['working'], 1_100);
      const third = taskRecord(alice, 1_200);
      expect(await fixture.peer.create(third, 3)).toBe(true);
      const fourth = taskRecord(alice, 1_200);
      expect(await store.create(fourth, 3)).toBe(false);
      expect(await store.find(fourth.taskId)).toBeUndefined();
      // A requester whose name differs by a trailing space is another requester.
      expect(await store.create(taskRecord(`${alice} `, 1_200), 1)).toBe(true);
      expect(await store.create(taskRecord(bob, 1_200), 2)).toBe(true);
    });

    it('holds the cap under 300 concurrent creations for one requester through two stores', async () => {
      const now = Date.now();
      const created = await Promise.all(
        Array.from({ length: 300 }, (_, i) => (i % 2 ? fixture.peer : store).create(taskRecord(alice, now), 100)),
      );
      expect(created.filter(Boolean)).toHaveLength(100);
      expect(await store.list(alice, now, 1_000)).toHaveLength(100);
      expect(await store.list(`${alice} `, now, 1_000)).toEqual([]);
    }, 120_000);

    it('finds working tasks whose lease ran out, and keeps, renews and clears a lease', async () => {
      const orphan = { ...taskRecord(alice, 1_000), leaseUntil: 1_500 };
      const running = { ...taskRecord(alice, 1_000), leaseUntil: 9_000 };
      const waiting = taskRecord(alice, 1_000);
      const expired = { ...taskRecord(alice, 1_000, 500), leaseUntil: 1_200 };
      for (const task of [orphan, running, waiting, expired]) await store.create(task);
      expect(await fixture.peer.find(orphan.taskId)).toEqual(orphan);
      const found = (await fixture.peer.orphans(2_000, 1_000)).map((task) => task.taskId);
      expect(found).toContain(orphan.taskId);
      for (const other of [running, waiting, expired]) expect(found).not.toContain(other.taskId);
      expect(await store.orphans(2_000, 0)).toEqual([]);
      const renewed = await store.update(orphan.taskId, { status: 'working', leaseUntil: 5_000 }, ['working'], 2_000);
      expect(renewed?.leaseUntil).toBe(5_000);
      expect((await store.orphans(2_100, 1_000)).map((task) => task.taskId)).not.toContain(orphan.taskId);
      const released = await store.update(orphan.taskId, { status: 'working', leaseUntil: null }, ['working'], 2_200);
      expect(released?.leaseUntil).toBeUndefined();
      expect((await store.orphans(9_999, 1_000)).map((task) => task.taskId)).not.toContain(orphan.taskId);
    });

    it('sweeps expired tasks, at most limit at a time, never a live one', async () => {
      const expired = [taskRecord(alice, 1_000, 10), taskRecord(alice, 1_000, 20), taskRecord(bob, 1_000, 30)];
      const live = taskRecord(alice, 1_000, 10_000_000_000);
      for (const task of [...expired, live]) await store.create(task);
      expect(await store.sweep(1_000_000, 1)).toBe(1);
      // Rows of earlier cases on the same tables may be swept too: sweep until none is left.
      for (let round = 0; round < 100 && (await fixture.peer.sweep(1_000_000, 50)) > 0; round++);
      for (const task of expired) expect(await store.find(task.taskId)).toBeUndefined();
      expect(await store.find(live.taskId)).toEqual(live);
      expect(await store.sweep(1_000_000, 0)).toBe(0);
    });
  });
}
