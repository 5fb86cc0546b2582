/// <reference types="jest" />
import { randomUUID } from 'node:crypto';
import type { AtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { TransactionalFsmStateStore } from '../stores/transactional-fsm-state-store.interface.js';
import type { WorkflowCallReceipt, FsmReceiptLog } from '../stores/workflow-call-receipt.interface.js';
import type { FsmStoreBusinessTable } from './fsm-state-store.contract.js';

/** A store under test that keeps receipts, and how to dispose of it (the shape of `FsmStoreFixture`). */
interface ReceiptStoreFixture<S> {
  store: S;
  cleanup: () => Promise<void>;
}

/** Makes a store under test (the shape of `FsmStoreFactory`). */
type ReceiptStoreFactory<S> = (options: { history: boolean }) => Promise<ReceiptStoreFixture<S>>;

type ReceiptStore = AtomicFsmStateStore & FsmReceiptLog;

/**
 * The cases of the receipts of keyed calls (`FsmReceiptLog`): a receipt is kept by the
 * write that stores its call's step and by nothing else, one per requester and key (compared
 * exactly), until it expires; transactional cases when `transactional` is given.
 * Run them beside {@link describeFsmStateStoreContract}, with the same factories, for a store that keeps receipts.
 *
 * @example
 * describeFsmReceiptLogContract('MyStore', factory);
 */
export function describeFsmReceiptLogContract(
  name: string,
  factory: ReceiptStoreFactory<ReceiptStore>,
  transactional?: { factory: ReceiptStoreFactory<TransactionalFsmStateStore & FsmReceiptLog>; business: FsmStoreBusinessTable },
): void {
  describe(`${name}: receipts of keyed calls`, () => {
    let fixture: ReceiptStoreFixture<ReceiptStore>;
    let store: ReceiptStore;

    beforeEach(async () => {
      fixture = await factory({ history: false });
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it('keeps a receipt with the commit of its call and finds it by requester and key, exactly, until it expires', async () => {
      const h = handle();
      await store.create(h, snapshot('captured'));
      const held = await claim(store, h, 'captured');
      const kept = receipt(h, { idempotencyKey: 'Refund-1' });
      expect(await store.commit(h, held, { snapshot: snapshot('refunded'), receipt: kept })).toBe(true);
      const now = Date.now();
      expect(await store.findReceipt(kept.requester, 'Refund-1', now)).toStrictEqual(kept);
      expect(await store.findReceipt(kept.requester, 'refund-1', now)).toBeUndefined();
      expect(await store.findReceipt('principal:bob', 'Refund-1', now)).toBeUndefined();
      expect(await store.findReceipt(kept.requester, 'Refund-1', kept.expiresAt)).toBeUndefined();
    });

    it('fails a commit whose receipt is kept already, storing nothing of it', async () => {
      const [first, second] = [handle(), handle()];
      await store.create(first, snapshot('captured'));
      await store.create(second, snapshot('captured'));
      const kept = receipt(first);
      expect(await store.commit(first, await claim(store, first, 'captured'), { snapshot: snapshot('refunded'), receipt: kept })).toBe(
        true,
      );
      const repeat = { ...receipt(second), requester: kept.requester, idempotencyKey: kept.idempotencyKey };
      const held = await claim(store, second, 'captured');
      await expect(store.commit(second, held, { snapshot: snapshot('refunded'), receipt: repeat })).rejects.toThrow();
      expect((await store.load(second))?.state).toBe('captured');
      expect(await store.findReceipt(kept.requester, kept.idempotencyKey, Date.now())).toStrictEqual(kept);
    });

    it('keeps a receipt with the instance a start creates, and creates nothing when its receipt is kept already', async () => {
      const [first, second] = [handle(), handle()];
      const kept = receipt(first);
      await store.create(first, snapshot('authorized'), undefined, undefined, kept);
      expect(await store.findReceipt(kept.requester, kept.idempotencyKey, Date.now())).toStrictEqual(kept);
      await expect(store.create(second, snapshot('authorized'), undefined, undefined, { ...kept, instanceKey: second })).rejects.toThrow();
      expect(await store.load(second)).toBeUndefined();
    });

    it('takes a new receipt in place of an expired one, and sweeps expired receipts in bounded batches', async () => {
      const past = Date.now() - 60_000;
      const expired = Array.from({ length: 3 }, () => receipt(handle(), { createdAt: past - 1_000, expiresAt: past }));
      for (const old of expired) await store.create(old.instanceKey, snapshot('authorized'), undefined, undefined, old);
      const h = handle();
      const renewed = receipt(h, { idempotencyKey: expired[0].idempotencyKey, requester: expired[0].requester });
      await store.create(h, snapshot('authorized'), undefined, undefined, renewed);
      expect(await store.findReceipt(renewed.requester, renewed.idempotencyKey, Date.now())).toStrictEqual(renewed);
      expect(await store.sweepReceipts(Date.now(), 1)).toBe(1);
      expect(await store.sweepReceipts(Date.now(), 10)).toBe(1);
      expect(await store.sweepReceipts(Date.now(), 10)).toBe(0);
      expect(await store.findReceipt(renewed.requester, renewed.idempotencyKey, Date.now())).toStrictEqual(renewed);
    });
  });

  if (!transactional) return;
  describe(`${name}: receipts of keyed calls in a transaction`, () => {
    let fixture: ReceiptStoreFixture<TransactionalFsmStateStore & FsmReceiptLog>;

    beforeEach(async () => {
      fixture = await transactional.factory({ history: false });
    });
    afterEach(() => fixture.cleanup());

    it('commits the receipt with the handler’s write and the state; a commit whose receipt is kept rolls back whole', async () => {
      const { store } = fixture;
      const { business } = transactional;
      const [first, second] = [handle(), handle()];
      await store.create(first, snapshot('captured'));
      await store.create(second, snapshot('captured'));
      const kept = receipt(first);
      const ids = [randomUUID(), randomUUID()];
      const once = await store.beginTransaction();
      await once.lock({ key: first, allowedStates: ['captured'] });
      await business.write(once.manager, ids[0]);
      await once.commit(first, { snapshot: snapshot('refunded'), receipt: kept });
      const twice = await store.beginTransaction();
      await twice.lock({ key: second, allowedStates: ['captured'] });
      await business.write(twice.manager, ids[1]);
      await expect(twice.commit(second, { snapshot: snapshot('refunded'), receipt: { ...kept, instanceKey: second } })).rejects.toThrow();
      await twice.rollback();
      expect([await business.count(ids[0]), await business.count(ids[1])]).toEqual([1, 0]);
      expect([(await store.load(first))?.state, (await store.load(second))?.state]).toEqual(['refunded', 'captured']);
      expect(await store.findReceipt(kept.requester, kept.idempotencyKey, Date.now())).toStrictEqual(kept);
    });

    it('keeps no receipt of a transaction that rolled back', async () => {
      const { store } = fixture;
      const h = handle();
      await store.create(h, snapshot('captured'));
      const tx = await store.beginTransaction();
      await tx.lock({ key: h, allowedStates: ['captured'] });
      await tx.rollback();
      const dropped = receipt(h);
      expect(await store.findReceipt(dropped.requester, dropped.idempotencyKey, Date.now())).toBeUndefined();
    });
  });
}

/** Claims `h` in `state` for a minute; answers the lease token. */
async function claim(store: AtomicFsmStateStore, h: string, state: string): Promise<string> {
  const token = randomUUID();
  const claimed = await store.claim({ key: h, allowedStates: [state], token, leaseMs: 60_000 });
  expect(claimed.status).toBe('claimed');
  return token;
}

function handle(): string {
  return `payment:handle:${randomUUID()}`;
}

function snapshot(state: string): WorkflowSnapshot {
  return { state, updatedAt: new Date().toISOString() };
}

/** A receipt of a call on `instanceKey`, a day long. */
function receipt(instanceKey: string, fields: Partial<WorkflowCallReceipt> = {}): WorkflowCallReceipt {
  const createdAt = Date.now();
  return {
    requester: `principal:${randomUUID()}`,
    idempotencyKey: randomUUID(),
    tool: 'payment.refund',
    fingerprint: 'f'.repeat(64),
    instanceKey,
    answer: {
      result: { content: [{ type: 'text', text: 'Refund recorded.' }], structuredContent: { refunded: 15, currency: 'EUR' } },
      state: 'refunded',
    },
    createdAt,
    expiresAt: createdAt + 86_400_000,
    ...fields,
  };
}
