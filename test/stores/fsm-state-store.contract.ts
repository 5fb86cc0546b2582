import { randomUUID } from 'node:crypto';
import { storeHandleExists } from '../../lib/mcp.messages.js';
import type {
  AtomicFsmStateStore,
  FsmClaimRequest,
  FsmClaimResult,
} from '../../lib/stores/atomic-fsm-state-store.interface.js';
import type { FsmSnapshot } from '../../lib/stores/fsm-state-store.interface.js';
import type { FsmTransitionRecord } from '../../lib/stores/fsm-transition-record.interface.js';
import type { TransactionalFsmStateStore } from '../../lib/stores/transactional-fsm-state-store.interface.js';

/** A business table the transactional cases write to through the transaction's manager. */
export interface FsmStoreBusinessTable {
  /** Inserts row `id` through `manager` (the transaction's entity manager). */
  write(manager: unknown, id: string): Promise<void>;
  /** Committed rows with `id`. */
  count(id: string): Promise<number>;
}

/** One store under test and how to dispose of it. */
export interface FsmStoreFixture<S extends AtomicFsmStateStore = AtomicFsmStateStore> {
  store: S;
  cleanup: () => Promise<void>;
}

/** Makes a store under test; `history` switches its history rows on. */
export type FsmStoreFactory<S extends AtomicFsmStateStore = AtomicFsmStateStore> = (options: {
  history: boolean;
}) => Promise<FsmStoreFixture<S>>;

/**
 * The cases every store passes (design §5, issue 3): run them with `factory` making the
 * store. Pass `transactional` for stores that implement `TransactionalFsmStateStore`.
 */
export function describeFsmStateStoreContract(
  name: string,
  factory: FsmStoreFactory,
  transactional?: { factory: FsmStoreFactory<TransactionalFsmStateStore>; business: FsmStoreBusinessTable },
): void {
  describe(`${name}: FsmStateStore contract`, () => {
    let fixture: FsmStoreFixture;
    let store: AtomicFsmStateStore;

    beforeEach(async () => {
      fixture = await factory({ history: true });
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it('round-trips load/save and replaces on save', async () => {
      const h = handle();
      const first = snapshot('draft', 'alice');
      await store.save(h, first);
      expect(await store.load(h)).toEqual(first);
      const second = snapshot('review');
      await store.save(h, second);
      expect(await store.load(h)).toEqual(second);
    });

    it('answers undefined, an empty map and unknown for a handle it never saw', async () => {
      const h = handle();
      expect(await store.load(h)).toBeUndefined();
      expect((await store.loadMany([h])).size).toBe(0);
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'unknown' });
    });

    it('creates an instance once and rejects a duplicate create', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      await expect(store.create(h, snapshot('review'))).rejects.toThrow(storeHandleExists(h));
      expect((await store.load(h))?.state).toBe('draft');
    });

    it('claims in an allowed state; refuses forbidden, busy and unknown', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      expect(await store.claim(claim(h, ['review']))).toEqual({ status: 'forbidden', state: 'draft' });
      expect(await store.claim(claim(h, ['draft', 'review']))).toEqual({ status: 'claimed', state: 'draft' });
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'busy', state: 'draft' });
      expect(await store.claim(claim(h, ['review']))).toEqual({ status: 'forbidden', state: 'draft' });
      expect(await store.claim(claim(handle(), ['draft']))).toEqual({ status: 'unknown' });
    });

    it('matches a parent state against its descendants only, exactly (case, "_" and "%")', async () => {
      const legal = handle();
      const reviewer = handle();
      await store.create(legal, snapshot('review.legal'));
      await store.create(reviewer, snapshot('reviewer'));
      expect(await store.claim(claim(legal, ['reviewer', 'Review', 'review.leg', 'revie_', 'rev%']))).toEqual({
        status: 'forbidden',
        state: 'review.legal',
      });
      expect(await store.claim(claim(reviewer, ['review']))).toEqual({ status: 'forbidden', state: 'reviewer' });
      expect(await store.claim(claim(legal, ['review']))).toEqual({ status: 'claimed', state: 'review.legal' });
    });

    it('creates an absent instance already leased from createWith', async () => {
      const h = handle();
      const first = claim(h, ['draft'], { createWith: snapshot('draft', 'alice') });
      expect(await store.claim(first)).toEqual({ status: 'claimed', state: 'draft' });
      expect(await store.load(h)).toMatchObject({ state: 'draft', owner: 'alice' });
      expect(await store.claim(claim(h, ['draft'], { createWith: snapshot('draft') }))).toEqual({
        status: 'busy',
        state: 'draft',
      });
      expect(await store.commit(h, first.token, { snapshot: snapshot('review') })).toBe(true);
      expect(await store.load(h)).toMatchObject({ state: 'review', owner: 'alice' });
    });

    it('treats an instance with another owner as unknown', async () => {
      const h = handle();
      await store.create(h, snapshot('draft', 'alice'));
      expect(await store.claim(claim(h, ['draft'], { owner: 'bob' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['draft'], { owner: 'alice' }))).toEqual({ status: 'claimed', state: 'draft' });
    });

    it('lets exactly one of 50 concurrent claims take the lease', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const results = await Promise.all(Array.from({ length: 50 }, () => store.claim(claim(h, ['draft']))));
      expect(results.filter((result) => result.status === 'claimed')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(49);
    });

    it('lets a later call claim after a crashed holder’s lease expires; the holder cannot commit then', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const crashed = claim(h, ['draft'], { leaseMs: 100 });
      expect((await store.claim(crashed)).status).toBe('claimed');
      expect((await store.claim(claim(h, ['draft']))).status).toBe('busy');
      await sleep(250);
      const later = claim(h, ['draft']);
      expect(await store.claim(later)).toEqual({ status: 'claimed', state: 'draft' });
      expect(await store.commit(h, crashed.token, { snapshot: snapshot('review') })).toBe(false);
      expect(await store.commit(h, later.token, { snapshot: snapshot('approved') })).toBe(true);
      expect((await store.load(h))?.state).toBe('approved');
    });

    it('renews a lease only for its holder, keeping the instance busy past the first lease', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const held = claim(h, ['draft'], { leaseMs: 200 });
      expect((await store.claim(held)).status).toBe('claimed');
      expect(await store.renew!(h, 'not-the-token', 200)).toBe(false);
      await sleep(120);
      expect(await store.renew!(h, held.token, 400)).toBe(true);
      await sleep(150);
      expect((await store.claim(claim(h, ['draft']))).status).toBe('busy');
      expect(await store.commit(h, held.token, { snapshot: snapshot('review') })).toBe(true);
      expect(await store.renew!(h, held.token, 200)).toBe(false);
    });

    it('refuses a commit with a stale token and leaves the state unchanged', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const held = claim(h, ['draft']);
      await store.claim(held);
      expect(await store.commit(h, 'not-the-token', { snapshot: snapshot('review') })).toBe(false);
      expect((await store.load(h))?.state).toBe('draft');
      expect(await store.commit(h, held.token, { snapshot: snapshot('review') })).toBe(true);
      expect(await store.commit(h, held.token, { snapshot: snapshot('approved') })).toBe(false);
      expect((await store.load(h))?.state).toBe('review');
    });

    it('releases only with the holding token, without changing the state', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const held = claim(h, ['draft']);
      await store.claim(held);
      await store.release(h, 'not-the-token');
      expect((await store.claim(claim(h, ['draft']))).status).toBe('busy');
      await store.release(h, held.token);
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'claimed', state: 'draft' });
      expect((await store.load(h))?.state).toBe('draft');
    });

    it('deletes instances, leaving the others', async () => {
      const [gone, kept] = [handle(), handle()];
      await store.create(gone, snapshot('draft'));
      await store.create(kept, snapshot('review'));
      await store.delete!([gone, handle()]);
      expect(await store.load(gone)).toBeUndefined();
      expect((await store.load(kept))?.state).toBe('review');
    });

    it('loads many instances at once, leaving absent ones out', async () => {
      const [a, b, c] = [handle(), handle(), handle()];
      await store.create(a, snapshot('draft'));
      await store.create(b, snapshot('review', 'alice'));
      await store.create(c, snapshot('approved'));
      const snapshots = await store.loadMany([a, handle(), b, c]);
      expect([...snapshots.keys()].sort()).toEqual([a, b, c].sort());
      expect(snapshots.get(b)).toMatchObject({ state: 'review', owner: 'alice' });
      expect((await store.loadMany([])).size).toBe(0);
    });

    it('keeps one history row per transition when history is on', async () => {
      const h = handle();
      const created = record(h, null, 'draft', null);
      await store.create(h, snapshot('draft'), created);
      const held = claim(h, ['draft']);
      await store.claim(held);
      const submitted = record(h, 'draft', 'review', 'SUBMIT');
      await store.commit(h, held.token, { snapshot: snapshot('review'), record: submitted });
      expect(await store.commit(h, held.token, { snapshot: snapshot('x'), record: record(h, 'review', 'x', 'X') })).toBe(
        false,
      );
      expect(await store.history(h)).toEqual([created, submitted]);
    });

    it('keeps no history when history is off', async () => {
      const quiet = await factory({ history: false });
      try {
        const h = handle();
        await quiet.store.create(h, snapshot('draft'), record(h, null, 'draft', null));
        expect(await quiet.store.history(h)).toEqual([]);
      } finally {
        await quiet.cleanup();
      }
    });

    it('holds 2,000 instances and loads them in one call', async () => {
      const handles = Array.from({ length: 2_000 }, () => handle());
      for (let i = 0; i < handles.length; i += 100) {
        await Promise.all(handles.slice(i, i + 100).map((h) => store.create(h, snapshot('draft'))));
      }
      const snapshots = await store.loadMany([...handles, handle()]);
      expect(snapshots.size).toBe(2_000);
      expect(handles.every((h) => snapshots.get(h)?.state === 'draft')).toBe(true);
    }, 120_000);
  });

  if (transactional) describeTransactionalContract(name, transactional.factory, transactional.business);
}

function describeTransactionalContract(
  name: string,
  factory: FsmStoreFactory<TransactionalFsmStateStore>,
  business: FsmStoreBusinessTable,
): void {
  describe(`${name}: TransactionalFsmStateStore contract`, () => {
    let fixture: FsmStoreFixture<TransactionalFsmStateStore>;
    let store: TransactionalFsmStateStore;

    beforeEach(async () => {
      fixture = await factory({ history: true });
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it('rolls back the handler’s write and the transition together', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const tx = await store.beginTransaction();
      expect(await tx.lock({ handle: h, allowedStates: ['draft'] })).toEqual({ status: 'claimed', state: 'draft' });
      const id = randomUUID();
      await business.write(tx.manager, id);
      await tx.rollback();
      await tx.rollback();
      expect(await business.count(id)).toBe(0);
      expect((await store.load(h))?.state).toBe('draft');
      expect(await store.history(h)).toEqual([]);
    });

    it('rolls back an instance created from createWith', async () => {
      const h = handle();
      const tx = await store.beginTransaction();
      const locked = await tx.lock({ handle: h, allowedStates: ['draft'], createWith: snapshot('draft') });
      expect(locked).toEqual({ status: 'claimed', state: 'draft' });
      const id = randomUUID();
      await business.write(tx.manager, id);
      await tx.rollback();
      expect(await business.count(id)).toBe(0);
      expect(await store.load(h)).toBeUndefined();
    });

    it('commits the handler’s write, the new state and its history row together', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const tx = await store.beginTransaction();
      await tx.lock({ handle: h, allowedStates: ['draft'] });
      const id = randomUUID();
      await business.write(tx.manager, id);
      const submitted = record(h, 'draft', 'review', 'SUBMIT');
      await tx.commit(h, { snapshot: snapshot('review'), record: submitted });
      expect(await business.count(id)).toBe(1);
      expect((await store.load(h))?.state).toBe('review');
      expect(await store.history(h)).toEqual([submitted]);
      await expect(tx.commit(h, { snapshot: snapshot('approved') })).rejects.toThrow();
    });

    it('inserts a new instance on commit with { insert: true }', async () => {
      const h = handle();
      const tx = await store.beginTransaction();
      const id = randomUUID();
      await business.write(tx.manager, id);
      await tx.commit(h, { snapshot: snapshot('pending', 'alice'), record: record(h, null, 'pending', null) }, { insert: true });
      expect(await store.load(h)).toMatchObject({ state: 'pending', owner: 'alice' });
      expect(await business.count(id)).toBe(1);
      expect(await store.history(h)).toHaveLength(1);
    });

    it('never lets a second transaction take a locked instance (busy, or waits and sees the new state)', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const first = await store.beginTransaction();
      expect((await first.lock({ handle: h, allowedStates: ['draft'] })).status).toBe('claimed');
      const second = (async () => {
        const tx = await store.beginTransaction();
        try {
          return await tx.lock({ handle: h, allowedStates: ['draft'] });
        } finally {
          await tx.rollback();
        }
      })();
      const early = await Promise.race([second, sleep(300).then(() => undefined)]);
      if (early) expect(early).toEqual({ status: 'busy', state: 'draft' });
      await first.commit(h, { snapshot: snapshot('review') });
      expect(['busy', 'forbidden']).toContain((await second).status);
    });

    it('reports busy while a lease holds the instance', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      await store.claim(claim(h, ['draft']));
      const tx = await store.beginTransaction();
      try {
        expect(await tx.lock({ handle: h, allowedStates: ['draft'] })).toEqual({ status: 'busy', state: 'draft' });
      } finally {
        await tx.rollback();
      }
    });

    it('starts 10 new instances concurrently from createWith (no deadlock between their inserts)', async () => {
      const calls = Array.from({ length: 10 }, () => ({ h: handle(), id: randomUUID() }));
      const results = await Promise.all(
        calls.map(async ({ h, id }): Promise<FsmClaimResult> => {
          const tx = await store.beginTransaction();
          try {
            const locked = await tx.lock({ handle: h, allowedStates: ['draft'], createWith: snapshot('draft') });
            if (locked.status === 'claimed') {
              await business.write(tx.manager, id);
              await tx.commit(h, { snapshot: snapshot('review') });
            }
            return locked;
          } finally {
            await tx.rollback();
          }
        }),
      );
      expect(results.map((result) => result.status)).toEqual(calls.map(() => 'claimed'));
      for (const { h, id } of calls) {
        expect(await business.count(id)).toBe(1);
        expect((await store.load(h))?.state).toBe('review');
      }
    });

    it('runs the handler once among 10 concurrent transactional calls', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const id = randomUUID();
      const results = await Promise.all(
        Array.from({ length: 10 }, async (): Promise<FsmClaimResult> => {
          const tx = await store.beginTransaction();
          try {
            const locked = await tx.lock({ handle: h, allowedStates: ['draft'] });
            if (locked.status === 'claimed') {
              await business.write(tx.manager, id);
              await tx.commit(h, { snapshot: snapshot('review') });
            }
            return locked;
          } finally {
            await tx.rollback();
          }
        }),
      );
      expect(results.filter((result) => result.status === 'claimed')).toHaveLength(1);
      expect(await business.count(id)).toBe(1);
      expect((await store.load(h))?.state).toBe('review');
    });
  });
}

function handle(): string {
  return `invoice:${randomUUID()}`;
}

function snapshot(state: string, owner?: string): FsmSnapshot {
  return { state, updatedAt: new Date().toISOString(), ...(owner === undefined ? {} : { owner }) };
}

function claim(h: string, allowedStates: string[], extra: Partial<FsmClaimRequest> = {}): FsmClaimRequest {
  return { handle: h, allowedStates, token: randomUUID(), leaseMs: 60_000, ...extra };
}

function record(h: string, from: string | null, to: string, event: string | null): FsmTransitionRecord {
  return {
    machine: 'invoice',
    handle: h,
    from,
    to,
    event,
    tool: event ? `invoice.${event.toLowerCase()}` : 'invoice.start',
    principal: 'session-1',
    at: new Date().toISOString(),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
