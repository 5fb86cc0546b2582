/// <reference types="jest" />
import { randomUUID } from 'node:crypto';
import type { AtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { TransactionalFsmStateStore } from '../stores/transactional-fsm-state-store.interface.js';
import type { FsmStateReader } from '../stores/workflow-state-reader.interface.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import type { WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';

/** A store under test and how to dispose of it (the shape of `FsmStoreFixture`). */
interface FsmStoreFixture<S = AtomicFsmStateStore> {
  store: S;
  cleanup: () => Promise<void>;
}

/** Makes a store under test (the shape of `FsmStoreFactory`). */
type FsmStoreFactory<S = AtomicFsmStateStore> = (options: { history: boolean }) => Promise<FsmStoreFixture<S>>;

/**
 * The cases of a call waiting for a second person's approval (`WorkflowSnapshot.waiting`, and the
 * `approval` note of the history row that decides it), for every store; transactional cases when
 * `transactional` is given. {@link describeFsmStateStoreContract} runs them.
 */
export function describeWorkflowWaitingContract(
  name: string,
  factory: FsmStoreFactory,
  transactional?: FsmStoreFactory<TransactionalFsmStateStore>,
): void {
  describe(`${name}: waiting requests (approvals)`, () => {
    let fixture: FsmStoreFixture;
    let store: AtomicFsmStateStore;

    beforeEach(async () => {
      fixture = await factory({ history: true });
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it('round-trips a waiting request through save, create, load and loadMany, and keeps no reference to it', async () => {
      const saved = handle();
      const parked = waitingSnapshot();
      await store.save(saved, parked);
      expect(await store.load(saved)).toStrictEqual(parked);
      const created = handle();
      await store.create(created, parked);
      expect((await store.loadMany([saved, created])).get(created)).toStrictEqual(parked);
      const loaded = await store.load(saved);
      loaded!.waiting!.input.amount = 1;
      parked.waiting!.input.amount = 2;
      expect((await store.load(saved))?.waiting?.input).toEqual({ amount: 150, paymentId: 'p-1' });
      const decided = snapshot('captured');
      await store.save(saved, decided);
      expect(await store.load(saved)).toStrictEqual(decided);
    });

    it('claims a row with a waiting request (and no context) with the request; a commit without one clears it', async () => {
      const h = handle();
      const parked: WorkflowSnapshot = { state: 'refund_pending', owner: 'alice', waiting: waiting(), updatedAt: new Date().toISOString() };
      await store.create(h, parked);
      const held = { key: h, allowedStates: ['refund_pending'], owner: 'bob', token: randomUUID(), leaseMs: 60_000 };
      expect(await store.claim({ ...held, owner: undefined })).toEqual({ status: 'unknown' });
      expect(await store.claim(held)).toStrictEqual({ status: 'unknown' });
      const mine = { ...held, owner: 'alice' };
      expect(await store.claim(mine)).toStrictEqual({ status: 'claimed', snapshot: parked });
      const decided = record(h, 'refund_pending', 'refunded', 'REFUND', { verdict: 'approved', requestedBy: 'alice' });
      const refunded = snapshot('refunded');
      expect(await store.commit(h, mine.token, { snapshot: refunded, record: decided })).toBe(true);
      expect(await store.load(h)).toStrictEqual({ ...refunded, owner: 'alice' });
      expect(await store.history(h)).toEqual([decided]);
    });

    it('commits a waiting request under a claim, and keeps the approval note of a history row (a rejection’s reason too)', async () => {
      const h = handle();
      await store.create(h, snapshot('captured'));
      const first = { key: h, allowedStates: ['captured'], token: randomUUID(), leaseMs: 60_000 };
      expect((await store.claim(first)).status).toBe('claimed');
      const asked = record(h, 'captured', 'refund_pending', 'REFUND');
      const parked = waitingSnapshot();
      expect(await store.commit(h, first.token, { snapshot: parked, record: asked })).toBe(true);
      expect(await store.load(h)).toStrictEqual(parked);
      const second = { key: h, allowedStates: ['refund_pending'], token: randomUUID(), leaseMs: 60_000 };
      expect(await store.claim(second)).toStrictEqual({ status: 'claimed', snapshot: parked });
      const note = { verdict: 'rejected' as const, requestedBy: 'alice', reason: 'duplicate — ü "quoted"' };
      const rejected = record(h, 'refund_pending', 'captured', null, note);
      expect(await store.commit(h, second.token, { snapshot: snapshot('captured', undefined, { captured: 300 }), record: rejected })).toBe(
        true,
      );
      expect((await store.load(h))?.waiting).toBeUndefined();
      const history = await store.history(h);
      expect(history).toEqual([asked, rejected]);
      expect('approval' in history[0]).toBe(false);
    });
  });

  describe(`${name}: listing waiting requests (listWaiting)`, () => {
    let fixture: FsmStoreFixture;
    let store: AtomicFsmStateStore & FsmStateReader;
    // One machine per test, so rows of earlier tests and runs in the same database never show.
    let machine: string;
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    const parked = (owner: string | undefined, team: string | undefined, ms: number, state = 'refund_pending'): WorkflowSnapshot => ({
      state,
      context: { captured: 300 },
      ...(owner === undefined ? {} : { owner }),
      ...(team === undefined ? {} : { team }),
      waiting: { ...waiting(), requestedBy: owner ?? null, at: at(ms) },
      updatedAt: at(ms),
    });

    beforeEach(async () => {
      fixture = await factory({ history: false });
      store = fixture.store as AtomicFsmStateStore & FsmStateReader;
      machine = `pay${randomUUID().slice(0, 8)}`;
    });
    afterEach(() => fixture.cleanup());

    it('answers only the instances of the machine in the waiting states with a request, newest first, each with its request and context', async () => {
      if (!store.listWaiting) return;
      const newer = `${machine}:${randomUUID()}`;
      const older = `${machine}:${randomUUID()}`;
      await store.create(older, parked('alice', 'acme', 1_000));
      await store.create(newer, parked('bob', 'acme', 2_000));
      await store.create(`${machine}:${randomUUID()}`, { state: 'refund_pending', owner: 'alice', updatedAt: at(3_000) });
      await store.create(`${machine}:${randomUUID()}`, parked('alice', 'acme', 4_000, 'captured'));
      await store.create(`other${machine}:${randomUUID()}`, parked('alice', 'acme', 5_000));
      const page = await store.listWaiting({ machine, states: ['refund_pending'], limit: 10 });
      expect(page.instances.map((row) => row.key)).toEqual([newer, older]);
      expect(page.next).toBeUndefined();
      const [first] = page.instances;
      expect(first).toMatchObject({
        key: newer,
        state: 'refund_pending',
        owner: 'bob',
        team: 'acme',
        updatedAt: at(2_000),
        context: { captured: 300 },
      });
      expect(first.waiting).toMatchObject({ tool: 'payment.refund', requestedBy: 'bob', at: at(2_000) });
      expect(typeof first.waiting.requestId).toBe('string');
    });

    it('lists for a principal their own instances and their team’s, never another team’s, one of no team, or one started anonymously', async () => {
      if (!store.listWaiting) return;
      const own = `${machine}:${randomUUID()}`;
      const teammates = `${machine}:${randomUUID()}`;
      await store.create(own, parked('alice', undefined, 1_000));
      await store.create(teammates, parked('bob', 'acme', 2_000));
      await store.create(`${machine}:${randomUUID()}`, parked('eve', 'globex', 3_000));
      await store.create(`${machine}:${randomUUID()}`, parked('dave', undefined, 4_000));
      await store.create(`${machine}:${randomUUID()}`, parked(undefined, undefined, 5_000));
      const keys = async (openTo: { owner?: string; team?: string }) =>
        (await store.listWaiting!({ machine, states: ['refund_pending'], limit: 10, openTo })).instances.map((row) => row.key);
      expect(await keys({ owner: 'alice', team: 'acme' })).toEqual([teammates, own]);
      expect(await keys({ owner: 'alice' })).toEqual([own]);
      expect(await keys({ owner: 'carol', team: 'acme' })).toEqual([teammates]);
      expect(await keys({})).toEqual([]);
      expect(await keys({ team: 'acme' })).toEqual([]);
      // Exactly: a trailing space is another principal, and another team.
      expect(await keys({ owner: 'alice ', team: 'acme ' })).toEqual([]);
    });

    it('pages by the cursor of the previous page, never more than the limit', async () => {
      if (!store.listWaiting) return;
      const keys = [];
      for (let i = 0; i < 5; i++) {
        const key = `${machine}:${randomUUID()}`;
        await store.create(key, parked('alice', 'acme', 10_000 + i));
        keys.unshift(key);
      }
      const first = await store.listWaiting({ machine, states: ['refund_pending', 'audit_pending'], limit: 2 });
      expect(first.instances.map((row) => row.key)).toEqual(keys.slice(0, 2));
      const second = await store.listWaiting({ machine, states: ['refund_pending'], limit: 2, after: first.next });
      expect(second.instances.map((row) => row.key)).toEqual(keys.slice(2, 4));
      const third = await store.listWaiting({ machine, states: ['refund_pending'], limit: 2, after: second.next });
      expect(third.instances.map((row) => row.key)).toEqual(keys.slice(4));
      expect(third.next).toBeUndefined();
    });
  });

  if (transactional) {
    describe(`${name}: waiting requests in transactions`, () => {
      let fixture: FsmStoreFixture<TransactionalFsmStateStore>;
      let store: TransactionalFsmStateStore;

      beforeEach(async () => {
        fixture = await transactional({ history: true });
        store = fixture.store;
      });
      afterEach(() => fixture.cleanup());

      it('locks a row with its waiting request and commits one, or clears it, with the history row', async () => {
        const h = handle();
        await store.create(h, snapshot('captured'));
        const tx = await store.beginTransaction();
        expect((await tx.lock({ key: h, allowedStates: ['captured'] })).status).toBe('claimed');
        const parked = waitingSnapshot();
        await tx.commit(h, { snapshot: parked, record: record(h, 'captured', 'refund_pending', 'REFUND') });
        const again = await store.beginTransaction();
        try {
          expect(await again.lock({ key: h, allowedStates: ['refund_pending'] })).toStrictEqual({ status: 'claimed', snapshot: parked });
          const decided = record(h, 'refund_pending', 'refunded', 'REFUND', { verdict: 'approved', requestedBy: 'alice' });
          await again.commit(h, { snapshot: snapshot('refunded'), record: decided });
          expect((await store.load(h))?.waiting).toBeUndefined();
          expect((await store.history(h)).at(-1)).toEqual(decided);
        } finally {
          await again.rollback();
        }
      });
    });
  }
}

function handle(): string {
  return `payment:${randomUUID()}`;
}

function waiting(): WorkflowWaitingRequest {
  return {
    requestId: randomUUID(),
    tool: 'payment.refund',
    event: 'REFUND',
    input: { amount: 150, paymentId: 'p-1' },
    requestedBy: 'alice',
    from: { state: 'captured', context: { authorized: 300, captured: 300, refunded: 0 } },
    at: new Date().toISOString(),
    taskId: 'task-1',
  };
}

function waitingSnapshot(): WorkflowSnapshot {
  return {
    state: 'refund_pending',
    context: { authorized: 300, captured: 300, refunded: 0 },
    waiting: waiting(),
    updatedAt: new Date().toISOString(),
  };
}

function snapshot(state: string, updatedAt = new Date().toISOString(), context?: Record<string, unknown>): WorkflowSnapshot {
  return { state, updatedAt, ...(context === undefined ? {} : { context }) };
}

function record(
  h: string,
  from: string,
  to: string,
  event: string | null,
  approval?: WorkflowTransitionRecord['approval'],
): WorkflowTransitionRecord {
  return {
    machine: 'payment',
    key: h,
    from,
    to,
    event,
    tool: 'payment.refund',
    principal: 'bob',
    at: new Date().toISOString(),
    ...(approval === undefined ? {} : { approval }),
  };
}
