/// <reference types="jest" />
import { randomUUID } from 'node:crypto';
import type { AtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { TransactionalFsmStateStore } from '../stores/transactional-fsm-state-store.interface.js';
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
