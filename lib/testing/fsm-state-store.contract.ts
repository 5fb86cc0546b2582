/// <reference types="jest" />
import { randomUUID } from 'node:crypto';
import { storeHandleExists } from '../stores/stores.messages.js';
import type { AtomicFsmStateStore, WorkflowClaimRequest, WorkflowClaimResult } from '../stores/atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import type { WorkflowLockRequest, TransactionalFsmStateStore } from '../stores/transactional-fsm-state-store.interface.js';
import { describeWorkflowWaitingContract } from './workflow-waiting.contract.js';
import { isWorkflowStateReader, type WorkflowInstanceQuery, type FsmStateReader } from '../stores/workflow-state-reader.interface.js';

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

/** Makes a store under test; `history` switches its history rows on, `attempts` its attempt log (`FsmAttemptLog`). */
export type FsmStoreFactory<S extends AtomicFsmStateStore = AtomicFsmStateStore> = (options: {
  history: boolean;
  attempts?: boolean;
}) => Promise<FsmStoreFixture<S>>;

/**
 * The cases every store passes: run them with `factory` making the
 * store. Pass `transactional` for stores that implement `TransactionalFsmStateStore`.
 * Stores with the read methods of `FsmStateReader` also run
 * {@link describeFsmStateReaderContract}.
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

    it('answers ping while it can serve calls (when it implements ping)', async () => {
      if (store.ping) {
        await expect(store.ping()).resolves.toBeUndefined();
      }
    });

    it('round-trips load/save with context and replaces on save', async () => {
      const h = handle();
      const first = snapshot('draft', 'alice', { amount: 12.5, lines: [{ sku: 'a', qty: 2 }], note: null, paid: false });
      await store.save(h, first);
      expect(await store.load(h)).toStrictEqual(first);
      const second = snapshot('review');
      await store.save(h, second);
      expect(await store.load(h)).toStrictEqual(second);
    });

    it('keeps no reference to a context it was given or returned', async () => {
      const h = handle();
      const context = { lines: [{ sku: 'a' }] };
      await store.save(h, snapshot('draft', undefined, context));
      context.lines.push({ sku: 'b' });
      const loaded = await store.load(h);
      (loaded!.context!.lines as unknown[]).push({ sku: 'c' });
      expect((await store.load(h))?.context).toEqual({ lines: [{ sku: 'a' }] });
    });

    it('answers undefined, an empty map and unknown for a handle it never saw', async () => {
      const h = handle();
      expect(await store.load(h)).toBeUndefined();
      expect((await store.loadMany([h])).size).toBe(0);
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, undefined))).toEqual({ status: 'unknown' });
    });

    it('creates an instance once, with its context, and rejects a duplicate create', async () => {
      const h = handle();
      const created = snapshot('draft', undefined, { step: 1 });
      await store.create(h, created);
      await expect(store.create(h, snapshot('review'))).rejects.toThrow(storeHandleExists(h));
      expect(await store.load(h)).toStrictEqual(created);
    });

    it('claims in an allowed state with the whole snapshot; refuses forbidden, busy and unknown', async () => {
      const h = handle();
      const created = snapshot('draft');
      await store.create(h, created);
      expect(await store.claim(claim(h, ['review']))).toEqual({ status: 'forbidden', state: 'draft' });
      expect(await store.claim(claim(h, ['review', 'draft']))).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'busy', state: 'draft' });
      expect(await store.claim(claim(h, ['review']))).toEqual({ status: 'forbidden', state: 'draft' });
      expect(await store.claim(claim(handle(), ['draft']))).toEqual({ status: 'unknown' });
    });

    it('claims a row with a context, and returns the context with the snapshot', async () => {
      const h = handle();
      const created = snapshot('draft', 'alice', { total: 3, tags: ['x'] });
      await store.create(h, created);
      expect(await store.claim(claim(h, ['draft'], { owner: 'alice' }))).toStrictEqual({
        status: 'claimed',
        snapshot: created,
      });
    });

    it('matches allowed states exactly: no prefix, case, "_" or "%" matching', async () => {
      const legal = handle();
      const reviewer = handle();
      await store.create(legal, snapshot('review.legal'));
      await store.create(reviewer, snapshot('reviewer'));
      const refused = ['review', 'reviewer', 'Review.legal', 'review.leg', 'review.legal.x', 'review_legal', 'review.%', 'rev%'];
      expect(await store.claim(claim(legal, refused))).toEqual({ status: 'forbidden', state: 'review.legal' });
      expect(await store.claim(claim(legal, []))).toEqual({ status: 'forbidden', state: 'review.legal' });
      expect(await store.claim(claim(reviewer, ['review']))).toEqual({ status: 'forbidden', state: 'reviewer' });
      expect(await store.claim(claim(legal, ['review.legal']))).toMatchObject({
        status: 'claimed',
        snapshot: { state: 'review.legal' },
      });
    });

    it('claims in a state listed among many (more than 511 allowed states)', async () => {
      const h = handle();
      const created = snapshot('s600');
      await store.create(h, created);
      const states = Array.from({ length: 600 }, (_, i) => `s${i + 1}`);
      expect(await store.claim(claim(h, states.slice(0, 599)))).toEqual({ status: 'forbidden', state: 's600' });
      expect(await store.claim(claim(h, states))).toStrictEqual({ status: 'claimed', snapshot: created });
    });

    it('claims rows whose updatedAt lies far in the past or the future', async () => {
      for (const updatedAt of ['1969-07-20T20:17:00.000Z', '2200-01-01T00:00:00.000Z']) {
        const h = handle();
        const created = { state: 'draft', updatedAt };
        await store.create(h, created);
        expect(await store.claim(claim(h, ['draft']))).toStrictEqual({ status: 'claimed', snapshot: created });
      }
    });

    it('claims in any state without allowedStates, still refusing busy and unknown', async () => {
      const h = handle();
      const created = snapshot('review.legal', undefined, { reviewer: 'bob' });
      await store.create(h, created);
      const any = claim(h, undefined);
      expect(await store.claim(any)).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await store.claim(claim(h, undefined))).toEqual({ status: 'busy', state: 'review.legal' });
      await store.release(h, any.token);
      const owned = handle();
      await store.create(owned, snapshot('draft', 'alice'));
      expect(await store.claim(claim(owned, undefined))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(owned, undefined, { owner: 'bob' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(owned, undefined, { owner: 'alice' }))).toMatchObject({ status: 'claimed' });
    });

    it('creates an absent instance already leased from createWith, with its context', async () => {
      const h = handle();
      const start = snapshot('draft', 'alice', { step: 0 });
      const first = claim(h, ['draft'], { createWith: start, owner: 'alice' });
      expect(await store.claim(first)).toStrictEqual({ status: 'claimed', snapshot: start, created: true });
      expect(await store.load(h)).toStrictEqual(start);
      expect(await store.claim(claim(h, ['draft'], { createWith: snapshot('draft'), owner: 'alice' }))).toEqual({
        status: 'busy',
        state: 'draft',
      });
      expect(await store.commit(h, first.token, { snapshot: snapshot('review', undefined, { step: 1 }) })).toBe(true);
      expect(await store.load(h)).toMatchObject({ state: 'review', owner: 'alice', context: { step: 1 } });
    });

    it('replaces the context on commit (a snapshot without one clears it)', async () => {
      const h = handle();
      await store.create(h, snapshot('draft', undefined, { step: 0, old: true }));
      const first = claim(h, ['draft']);
      await store.claim(first);
      const moved = snapshot('review', undefined, { step: 1 });
      expect(await store.commit(h, first.token, { snapshot: moved })).toBe(true);
      expect(await store.load(h)).toStrictEqual(moved);
      const second = claim(h, ['review']);
      expect(await store.claim(second)).toStrictEqual({ status: 'claimed', snapshot: moved });
      const done = snapshot('approved');
      expect(await store.commit(h, second.token, { snapshot: done })).toBe(true);
      expect(await store.load(h)).toStrictEqual(done);
    });

    it('hides an owned instance from every other caller, anonymous ones included', async () => {
      const h = handle();
      await store.create(h, snapshot('draft', 'alice'));
      expect(await store.claim(claim(h, ['draft'], { owner: 'bob' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['review'], { owner: 'bob' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['review'], { owner: 'alice' }))).toEqual({ status: 'forbidden', state: 'draft' });
      expect(await store.claim(claim(h, ['draft'], { owner: 'alice' }))).toStrictEqual({
        status: 'claimed',
        snapshot: (await store.load(h))!,
      });
      expect(await store.claim(claim(h, ['draft'], { owner: 'bob' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['draft'], { owner: 'alice' }))).toEqual({ status: 'busy', state: 'draft' });
    });

    it('opens an instance without an owner to anyone, anonymous or not', async () => {
      const h = handle();
      const created = snapshot('draft');
      await store.create(h, created);
      const anonymous = claim(h, ['draft']);
      expect(await store.claim(anonymous)).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await store.claim(claim(h, ['draft'], { owner: 'bob' }))).toEqual({ status: 'busy', state: 'draft' });
      await store.release(h, anonymous.token);
      const bob = claim(h, ['draft'], { owner: 'bob' });
      expect(await store.claim(bob)).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await store.claim(claim(h, ['review'], { owner: 'carol' }))).toEqual({ status: 'forbidden', state: 'draft' });
      expect(await store.claim(claim(h, ['draft']))).toEqual({ status: 'busy', state: 'draft' });
    });

    it('round-trips the team of an instance (create, save, claim, commit) and keeps it on a commit without one', async () => {
      const h = handle();
      const created: WorkflowSnapshot = { ...snapshot('draft', 'alice', { n: 1 }), team: 'acme' };
      await store.create(h, created);
      expect(await store.load(h)).toStrictEqual(created);
      const held = claim(h, ['draft'], { owner: 'alice', team: 'acme' });
      expect(await store.claim(held)).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await store.commit(h, held.token, { snapshot: snapshot('review', 'alice') })).toBe(true);
      expect(await store.load(h)).toMatchObject({ state: 'review', owner: 'alice', team: 'acme' });
      const saved = handle();
      await store.save(saved, { ...snapshot('draft', 'bob'), team: 'globex' });
      expect(await store.load(saved)).toMatchObject({ owner: 'bob', team: 'globex' });
    });

    it('opens an instance with a team to callers of that team, and to nobody else but its owner', async () => {
      const h = handle();
      const created: WorkflowSnapshot = { ...snapshot('draft', 'alice'), team: 'acme' };
      await store.create(h, created);
      expect(await store.claim(claim(h, ['draft'], { owner: 'eve', team: 'globex' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['draft'], { owner: 'eve' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['draft'], { team: 'acme' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['review'], { owner: 'bob', team: 'acme' }))).toEqual({ status: 'forbidden', state: 'draft' });
      const bob = claim(h, ['draft'], { owner: 'bob', team: 'acme' });
      expect(await store.claim(bob)).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await store.claim(claim(h, ['draft'], { owner: 'alice' }))).toEqual({ status: 'busy', state: 'draft' });
      expect(await store.claim(claim(h, ['draft'], { owner: 'eve', team: 'globex' }))).toEqual({ status: 'unknown' });
      expect(await store.commit(h, bob.token, { snapshot: snapshot('review', 'alice') })).toBe(true);
      expect(await store.load(h)).toMatchObject({ state: 'review', owner: 'alice', team: 'acme' });
    });

    it('keeps an owned instance without a team its owner’s alone, whatever team a caller names', async () => {
      const h = handle();
      await store.create(h, snapshot('draft', 'alice'));
      expect(await store.claim(claim(h, ['draft'], { owner: 'bob', team: 'acme' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(h, ['draft'], { owner: 'alice', team: 'acme' }))).toMatchObject({ status: 'claimed' });
    });

    it('compares owners, teams and handles exactly: a trailing space names another principal, team or instance', async () => {
      const solo = handle();
      const solos = snapshot('draft', 'solo');
      await store.create(solo, solos);
      expect(await store.claim(claim(solo, ['draft'], { owner: 'solo ' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(`${solo} `, ['draft'], { owner: 'solo' }))).toEqual({ status: 'unknown' });
      const acme = handle();
      const acmes: WorkflowSnapshot = { ...snapshot('draft', 'alice'), team: 'acme' };
      await store.create(acme, acmes);
      expect(await store.claim(claim(acme, ['draft'], { owner: 'bob', team: 'acme ' }))).toEqual({ status: 'unknown' });
      expect(await store.claim(claim(acme, ['draft'], { owner: 'alice ', team: 'acme ' }))).toEqual({ status: 'unknown' });
      // Nothing was taken or rewritten: the owners still claim, and their rows are as created.
      const owner = claim(solo, ['draft'], { owner: 'solo' });
      expect(await store.claim(owner)).toStrictEqual({ status: 'claimed', snapshot: solos });
      expect(await store.commit(solo, owner.token, { snapshot: snapshot('review', 'solo') })).toBe(true);
      expect(await store.load(solo)).toMatchObject({ state: 'review', owner: 'solo' });
      expect(await store.load(acme)).toStrictEqual(acmes);
    });

    it('claims for anyone with anyOwner (the gate judges an access function itself)', async () => {
      const h = handle();
      const created: WorkflowSnapshot = { ...snapshot('draft', 'alice'), team: 'acme' };
      await store.create(h, created);
      expect(await store.claim(claim(h, ['draft'], { owner: 'eve', anyOwner: true }))).toStrictEqual({
        status: 'claimed',
        snapshot: created,
      });
      expect(await store.claim(claim(h, ['draft'], { anyOwner: true }))).toEqual({ status: 'busy', state: 'draft' });
    });

    it.each([
      ['without', undefined],
      ['with', { n: 1 }],
    ])('lets exactly one of 50 concurrent claims take the lease (row %s context)', async (_, context) => {
      const h = handle();
      const created = snapshot('draft', undefined, context);
      await store.create(h, created);
      const results = await Promise.all(Array.from({ length: 50 }, () => store.claim(claim(h, ['draft']))));
      expect(results.filter((result) => result.status === 'claimed')).toStrictEqual([{ status: 'claimed', snapshot: created }]);
      expect(results.filter((result) => result.status === 'busy')).toHaveLength(49);
    });

    it('lets a later call claim after a crashed holder’s lease expires; the holder cannot commit then', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      // Leases long enough that a slow database (a loaded CI machine) answers the second claim inside the first.
      const crashed = claim(h, ['draft'], { leaseMs: 1000 });
      expect((await store.claim(crashed)).status).toBe('claimed');
      expect((await store.claim(claim(h, ['draft']))).status).toBe('busy');
      await sleep(1200);
      const later = claim(h, ['draft']);
      expect(await store.claim(later)).toMatchObject({ status: 'claimed', snapshot: { state: 'draft' } });
      expect(await store.commit(h, crashed.token, { snapshot: snapshot('review') })).toBe(false);
      expect(await store.commit(h, later.token, { snapshot: snapshot('approved') })).toBe(true);
      expect((await store.load(h))?.state).toBe('approved');
    });

    it('renews a lease only for its holder, keeping the instance busy past the first lease', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const held = claim(h, ['draft'], { leaseMs: 1000 });
      expect((await store.claim(held)).status).toBe('claimed');
      expect(await store.renew!(h, 'not-the-token', 1000)).toBe(false);
      await sleep(600);
      expect(await store.renew!(h, held.token, 3000)).toBe(true);
      await sleep(750);
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
      expect(await store.claim(claim(h, ['draft']))).toMatchObject({ status: 'claimed', snapshot: { state: 'draft' } });
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

    it('ends an instance only under its lease, writing its last history row in the same write (when it has end)', async () => {
      if (!store.end) return;
      const h = handle();
      await store.create(h, snapshot('draft'), record(h, null, 'draft', null));
      const last = { ...record(h, 'draft', 'draft', 'mcp.end'), at: new Date(Date.now() + 1).toISOString() };
      expect(await store.end(h, 'no-lease', last)).toBe(false);
      const held = claim(h, undefined);
      await store.claim(held);
      expect(await store.end(h, 'not-the-token', last)).toBe(false);
      expect((await store.load(h))?.state).toBe('draft');
      expect(await store.end(h, held.token, last)).toBe(true);
      expect(await store.load(h)).toBeUndefined();
      expect((await store.history(h)).map((row) => row.event)).toEqual([null, 'mcp.end']);
      expect(await store.end(h, held.token, last)).toBe(false);
    });

    it('loads many instances at once, leaving absent ones out', async () => {
      const [a, b, c] = [handle(), handle(), handle()];
      await store.create(a, snapshot('draft'));
      const withContext = snapshot('review', 'alice', { total: 7 });
      await store.create(b, withContext);
      await store.create(c, snapshot('approved'));
      const snapshots = await store.loadMany([a, handle(), b, c]);
      expect([...snapshots.keys()].sort()).toEqual([a, b, c].sort());
      expect(snapshots.get(b)).toStrictEqual(withContext);
      expect(snapshots.get(c)).not.toHaveProperty('context');
      expect((await store.loadMany([])).size).toBe(0);
    });

    it('loads only the states of many instances at once, leaving absent ones out', async () => {
      const [a, b, c] = [handle(), handle(), handle()];
      await store.create(a, snapshot('draft'));
      await store.create(b, snapshot('review', 'alice', { total: 7 }));
      await store.create(c, snapshot('approved'));
      const held = claim(c, ['approved']);
      await store.claim(held);
      await store.commit(c, held.token, { snapshot: snapshot('discharged') });
      expect(await store.loadStates!([a, handle(), b, c])).toEqual(
        new Map([
          [a, 'draft'],
          [b, 'review'],
          [c, 'discharged'],
        ]),
      );
      expect((await store.loadStates!([])).size).toBe(0);
    });

    it('sweeps finished and idle instances in bounded batches, with their history, never a leased one', async () => {
      const machine = `sweep${randomUUID().slice(0, 8)}`;
      const key = () => `${machine}:${randomUUID()}`;
      const aged = (state: string): WorkflowSnapshot => ({ state, updatedAt: new Date(Date.now() - 60_000).toISOString() });
      const [doneOld, doneNew, openOld, openOld2, leased] = [key(), key(), key(), key(), key()];
      await store.create(doneOld, aged('discharged'), record(doneOld, null, 'discharged', null));
      await store.create(doneNew, snapshot('discharged'));
      await store.create(openOld, aged('draft'));
      await store.create(openOld2, aged('review'));
      await store.create(leased, aged('discharged'));
      expect((await store.claim(claim(leased, undefined))).status).toBe('claimed');
      const before = Date.now() - 30_000;
      const finished = { machines: [{ machine, states: ['discharged'] }], before };

      expect(await store.sweep!({ finished, limit: 10 })).toBe(1);
      expect(await store.load(doneOld)).toBeUndefined();
      expect(await store.history(doneOld)).toEqual([]);
      expect((await store.loadMany([doneNew, openOld, openOld2, leased])).size).toBe(4);

      const idle = { machines: [machine], before };
      expect(await store.sweep!({ idle, limit: 1 })).toBe(1);
      expect(await store.sweep!({ idle, limit: 1 })).toBe(1);
      expect(await store.sweep!({ idle, finished, limit: 10 })).toBe(0);
      expect([...(await store.loadMany([doneNew, openOld, openOld2, leased])).keys()].sort()).toEqual([doneNew, leased].sort());
      expect(await store.sweep!({ limit: 10 })).toBe(0);
    });

    it('keeps one history row per transition when history is on', async () => {
      const h = handle();
      const created = record(h, null, 'draft', null);
      await store.create(h, snapshot('draft'), created);
      const held = claim(h, ['draft']);
      await store.claim(held);
      const submitted = record(h, 'draft', 'review', 'SUBMIT');
      await store.commit(h, held.token, { snapshot: snapshot('review'), record: submitted });
      expect(await store.commit(h, held.token, { snapshot: snapshot('x'), record: record(h, 'review', 'x', 'X') })).toBe(false);
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

    it('has both read methods of FsmStateReader or neither (the console detects them as a pair)', () => {
      const methods = [typeof (store as Partial<FsmStateReader>).listInstances, typeof (store as Partial<FsmStateReader>).recentHistory];
      expect(methods.filter((kind) => kind === 'function')).toHaveLength(isWorkflowStateReader(store) ? 2 : 0);
    });

    it('holds 2,000 instances and loads them, or only their states, in one call', async () => {
      const handles = Array.from({ length: 2_000 }, () => handle());
      // Created ten at a time (a pool's default size): each create's timeoutMs includes its wait for a
      // connection, and this setup is not the load under test.
      for (let i = 0; i < handles.length; i += 10) {
        await Promise.all(handles.slice(i, i + 10).map((h) => store.create(h, snapshot('draft'))));
      }
      const snapshots = await store.loadMany([...handles, handle()]);
      expect(snapshots.size).toBe(2_000);
      expect(handles.every((h) => snapshots.get(h)?.state === 'draft')).toBe(true);
      const states = await store.loadStates!([...handles, handle()]);
      expect(states.size).toBe(2_000);
      expect(handles.every((h) => states.get(h) === 'draft')).toBe(true);
    }, 120_000);
  });

  if (transactional) describeTransactionalContract(name, transactional.factory, transactional.business);
  describeWorkflowWaitingContract(name, factory, transactional?.factory);
}

/**
 * The cases of the read methods of `FsmStateReader` (what the workflow console lists), for
 * stores that implement them, with the same `factory` as {@link describeFsmStateStoreContract}.
 * Each case lists its own machine (a fresh id), so the rows of other cases on a shared table
 * stay out of its pages; the one case without a machine filter writes rows dated 2300.
 *
 * @example
 * describeFsmStateStoreContract('MyStore', factory);
 * describeFsmStateReaderContract('MyStore', factory);
 */
export function describeFsmStateReaderContract(name: string, factory: FsmStoreFactory): void {
  describe(`${name}: FsmStateReader contract`, () => {
    let fixture: FsmStoreFixture;
    let store: AtomicFsmStateStore & FsmStateReader;
    const machine = () => `list${randomUUID().slice(0, 8)}`;
    const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms).toISOString();
    const keys = (page: { instances: { key: string }[] }) => page.instances.map((instance) => instance.key);
    /** Every page of `query`, following `next` (at most 50 pages). */
    const allPages = async (query: WorkflowInstanceQuery) => {
      const pages = [await store.listInstances(query)];
      while (pages.at(-1)!.next && pages.length < 50) pages.push(await store.listInstances({ ...query, after: pages.at(-1)!.next }));
      return pages;
    };

    beforeEach(async () => {
      fixture = await factory({ history: true });
      if (!isWorkflowStateReader(fixture.store)) {
        await fixture.cleanup();
        throw new Error(`${name} has no listInstances/recentHistory: it does not implement FsmStateReader.`);
      }
      store = fixture.store;
    });
    afterEach(() => fixture.cleanup());

    it('lists the instances of one machine newest first, with owner, state and last change, and no context', async () => {
      const m = machine();
      const [a, b, c] = [`${m}:a${randomUUID()}`, `${m}:b${randomUUID()}`, `${m}:session:${randomUUID()}`];
      await store.create(a, { state: 'draft', updatedAt: at(1_000), context: { total: 1 } });
      await store.create(b, { state: 'review.legal', updatedAt: at(3_000), owner: 'alice' });
      await store.save(c, { state: 'approved', updatedAt: at(2_000) });
      await store.create(`${machine()}:${randomUUID()}`, { state: 'draft', updatedAt: at(2_500) });
      const page = await store.listInstances({ machine: m, limit: 10 });
      expect(page).toStrictEqual({
        instances: [
          { key: b, machine: m, state: 'review.legal', owner: 'alice', updatedAt: at(3_000) },
          { key: c, machine: m, state: 'approved', updatedAt: at(2_000) },
          { key: a, machine: m, state: 'draft', updatedAt: at(1_000) },
        ],
      });
    });

    it('filters by exact state values (no prefix matching) and answers nothing for an empty list', async () => {
      const m = machine();
      const [legal, reviewer, draft] = [`${m}:${randomUUID()}`, `${m}:${randomUUID()}`, `${m}:${randomUUID()}`];
      await store.create(legal, { state: 'review.legal', updatedAt: at(1_000) });
      await store.create(reviewer, { state: 'reviewer', updatedAt: at(2_000) });
      await store.create(draft, { state: 'draft', updatedAt: at(3_000) });
      expect(keys(await store.listInstances({ machine: m, states: ['review'], limit: 10 }))).toEqual([]);
      expect(keys(await store.listInstances({ machine: m, states: ['review.legal', 'draft', 'review%'], limit: 10 }))).toEqual([
        draft,
        legal,
      ]);
      expect(keys(await store.listInstances({ machine: m, states: [], limit: 10 }))).toEqual([]);
    });

    it('pages with a cursor: no instance twice, none left out, ties in the same millisecond included', async () => {
      const m = machine();
      const created: string[] = [];
      for (let i = 0; i < 7; i++) {
        const key = `${m}:${randomUUID()}`;
        created.push(key);
        await store.create(key, { state: 'draft', updatedAt: at(i < 4 ? 5_000 : 1_000 * i) });
      }
      const pages = await allPages({ machine: m, limit: 3 });
      expect(pages.map((page) => page.instances.length)).toEqual([3, 3, 1]);
      expect(pages.at(-1)!.next).toBeUndefined();
      const listed = pages.flatMap(keys);
      expect([...listed].sort()).toEqual([...created].sort());
      const times = pages.flatMap((page) => page.instances.map((instance) => Date.parse(instance.updatedAt)));
      expect([...times].sort((x, y) => y - x)).toEqual(times);
      expect((await store.listInstances({ machine: m, limit: 7 })).next).toBeUndefined();
    });

    it('sees a transition at once: the moved instance leads the list in its new state', async () => {
      const m = machine();
      const [first, second] = [`${m}:${randomUUID()}`, `${m}:${randomUUID()}`];
      await store.create(first, { state: 'authorized', updatedAt: at(1_000) });
      await store.create(second, { state: 'authorized', updatedAt: at(2_000) });
      const held = claim(first, ['authorized']);
      await store.claim(held);
      await store.commit(first, held.token, { snapshot: { state: 'captured', updatedAt: at(3_000) } });
      expect(await store.listInstances({ machine: m, states: ['captured'], limit: 10 })).toMatchObject({
        instances: [{ key: first, state: 'captured', updatedAt: at(3_000) }],
      });
      expect(keys(await store.listInstances({ machine: m, limit: 10 }))).toEqual([first, second]);
      await store.delete!([second]);
      expect(keys(await store.listInstances({ machine: m, limit: 10 }))).toEqual([first]);
    });

    it('lists every machine without a machine filter, newest first', async () => {
      const [m1, m2] = [machine(), machine()];
      const future = Date.UTC(2300, 0, 1);
      const [x, y] = [`${m1}:${randomUUID()}`, `${m2}:session:${randomUUID()}`];
      await store.create(x, { state: 'draft', updatedAt: new Date(future).toISOString() });
      await store.create(y, { state: 'review', updatedAt: new Date(future + 1).toISOString() });
      await store.create(`${m1}:${randomUUID()}`, { state: 'draft', updatedAt: new Date(future - 1).toISOString() });
      const page = await store.listInstances({ limit: 2 });
      expect(page.instances.map(({ key, machine }) => [key, machine])).toEqual([
        [y, m2],
        [x, m1],
      ]);
      expect(page.next).toEqual({ updatedAt: new Date(future).toISOString(), key: x });
    });

    it('answers the most recent history rows oldest first, and whether older ones were left out', async () => {
      const h = handle();
      const rows = [record(h, null, 'draft', null)];
      await store.create(h, snapshot('draft'), rows[0]);
      let state = 'draft';
      for (const next of ['review', 'draft', 'review', 'approved']) {
        const held = claim(h, [state]);
        await store.claim(held);
        const row = { ...record(h, state, next, next.toUpperCase()), at: new Date(Date.parse(rows.at(-1)!.at) + 1).toISOString() };
        await store.commit(h, held.token, { snapshot: snapshot(next), record: row });
        rows.push(row);
        state = next;
      }
      expect(await store.recentHistory(h, 10)).toEqual({ entries: rows, truncated: false });
      expect(await store.recentHistory(h, 5)).toEqual({ entries: rows, truncated: false });
      expect(await store.recentHistory(h, 2)).toEqual({ entries: rows.slice(3), truncated: true });
      expect(await store.recentHistory(handle(), 5)).toEqual({ entries: [], truncated: false });
    });

    it('searches by the first characters of a handle or a session id, or by the exact owner; no character is a wildcard', async () => {
      const m = machine();
      // The other ids start with `z`: a random hex id may itself start with `ab`.
      const [handleKey, sessionKey, owned, literal] = [
        `${m}:Ab${randomUUID()}`,
        `${m}:session:Ab${randomUUID()}`,
        `${m}:z${randomUUID()}`,
        `${m}:z${randomUUID()}`,
      ];
      await store.create(handleKey, { state: 'draft', updatedAt: at(1_000) });
      await store.save(sessionKey, { state: 'draft', updatedAt: at(2_000) });
      await store.create(owned, { state: 'draft', updatedAt: at(3_000), owner: 'Ab-owner' });
      await store.create(literal, { state: 'draft', updatedAt: at(4_000), owner: 'a%b_c' });
      expect(keys(await store.listInstances({ machine: m, search: 'Ab', limit: 10 }))).toEqual([sessionKey, handleKey]);
      expect(keys(await store.listInstances({ machine: m, search: 'ab', limit: 10 }))).toEqual([]);
      expect(keys(await store.listInstances({ machine: m, search: 'Ab-owner', limit: 10 }))).toEqual([owned]);
      expect(keys(await store.listInstances({ machine: m, search: 'Ab-own', limit: 10 }))).toEqual([]);
      expect(keys(await store.listInstances({ machine: m, search: 'session', limit: 10 }))).toEqual([]);
      expect(keys(await store.listInstances({ machine: m, search: '%', limit: 10 }))).toEqual([]);
      expect(keys(await store.listInstances({ machine: m, search: 'a%b_c', limit: 10 }))).toEqual([literal]);
      expect(keys(await store.listInstances({ machine: m, search: handleKey.slice(m.length + 1), limit: 10 }))).toEqual([handleKey]);
    });

    it('counts the instances a filter matches, up to the given most (when it has countInstances)', async () => {
      if (!store.countInstances) return;
      const m = machine();
      for (let i = 0; i < 5; i++) await store.create(`${m}:${randomUUID()}`, { state: i < 3 ? 'draft' : 'review', updatedAt: at(i) });
      await store.create(`${m}:Zz${randomUUID()}`, { state: 'review', updatedAt: at(9), owner: 'bob' });
      expect(await store.countInstances({ machine: m, max: 100 })).toBe(6);
      expect(await store.countInstances({ machine: m, states: ['review'], max: 100 })).toBe(3);
      expect(await store.countInstances({ machine: m, search: 'bob', max: 100 })).toBe(1);
      expect(await store.countInstances({ machine: m, search: 'Zz', max: 100 })).toBe(1);
      expect(await store.countInstances({ machine: m, max: 4 })).toBe(4);
      expect(await store.countInstances({ machine: m, states: [], max: 100 })).toBe(0);
    });

    it("lists for a viewer only what its access opens: its own, its team's on that team's machine, a machine it judges itself; never an owner-less one", async () => {
      const [m, other, judged] = [machine(), machine(), machine()];
      const [own, mate, stranger, open, otherMate, judgedKey] = [m, m, m, m, other, judged].map((id) => `${id}:${randomUUID()}`);
      await store.create(own, { state: 'draft', updatedAt: at(6_000), owner: 'alice', team: 'acme' });
      await store.create(mate, { state: 'review', updatedAt: at(5_000), owner: 'bob', team: 'acme' });
      await store.create(stranger, { state: 'review', updatedAt: at(4_000), owner: 'eve', team: 'globex' });
      await store.create(open, { state: 'draft', updatedAt: at(3_000) });
      await store.create(otherMate, { state: 'draft', updatedAt: at(2_000), owner: 'bob', team: 'acme' });
      await store.create(judgedKey, { state: 'draft', updatedAt: at(1_000), owner: 'eve' });
      const alice = { owner: 'alice', teams: { [m]: 'acme' }, anyOwner: [judged] };
      const listed = async (query: Omit<WorkflowInstanceQuery, 'limit'>) =>
        (await Promise.all([m, other, judged].map((id) => store.listInstances({ ...query, machine: id, limit: 10 })))).flatMap(keys);
      expect(await listed({ viewer: alice })).toEqual([own, mate, judgedKey]);
      expect(await listed({ viewer: { owner: 'eve' } })).toEqual([stranger, judgedKey]);
      expect(await listed({ viewer: { owner: 'mallory', teams: { [other]: 'globex' } } })).toEqual([]);
      expect(await listed({ viewer: alice, search: 'bob' })).toEqual([mate]);
      expect(await listed({ viewer: alice, states: ['review'] })).toEqual([mate]);
      if (store.countInstances) expect(await store.countInstances({ machine: m, viewer: alice, max: 100 })).toBe(2);
    });

    it('counts the instances a filter matches in each machine and state, over at most the given most (when it has countStates)', async () => {
      if (!store.countStates) return;
      const m = machine();
      const states = ['draft', 'draft', 'review', 'review.legal', 'review', 'review'];
      for (const [i, state] of states.entries()) {
        await store.create(`${m}:${randomUUID()}`, { state, updatedAt: at(i * 1_000), owner: i % 2 ? 'bob' : 'alice' });
      }
      const sorted = (counts: { machine: string; state: string; count: number }[]) =>
        [...counts].sort((a, b) => a.state.localeCompare(b.state)).map(({ machine: id, state, count }) => [id, state, count]);
      expect(sorted(await store.countStates({ machine: m, max: 100 }))).toEqual([
        [m, 'draft', 2],
        [m, 'review', 3],
        [m, 'review.legal', 1],
      ]);
      expect(sorted(await store.countStates({ machine: m, viewer: { owner: 'bob' }, max: 100 }))).toEqual([
        [m, 'draft', 1],
        [m, 'review', 1],
        [m, 'review.legal', 1],
      ]);
      expect(sorted(await store.countStates({ machine: m, states: ['draft'], max: 100 }))).toEqual([[m, 'draft', 2]]);
      // The newest three: review, review, review.legal.
      expect(sorted(await store.countStates({ machine: m, max: 3 }))).toEqual([
        [m, 'review', 2],
        [m, 'review.legal', 1],
      ]);
    });

    it('answers no history when history is off', async () => {
      const quiet = await factory({ history: false });
      try {
        const h = handle();
        await quiet.store.create(h, snapshot('draft'), record(h, null, 'draft', null));
        expect(await (quiet.store as AtomicFsmStateStore & FsmStateReader).recentHistory(h, 5)).toEqual({
          entries: [],
          truncated: false,
        });
      } finally {
        await quiet.cleanup();
      }
    });
  });
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
      expect(await tx.lock({ key: h, allowedStates: ['draft'] })).toMatchObject({
        status: 'claimed',
        snapshot: { state: 'draft' },
      });
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
      const start = snapshot('draft', undefined, { step: 0 });
      const locked = await tx.lock({ key: h, allowedStates: ['draft'], createWith: start });
      expect(locked).toStrictEqual({ status: 'claimed', snapshot: start, created: true });
      const id = randomUUID();
      await business.write(tx.manager, id);
      await tx.rollback();
      expect(await business.count(id)).toBe(0);
      expect(await store.load(h)).toBeUndefined();
    });

    it('commits the handler’s write, the new state and context and its history row together', async () => {
      const h = handle();
      const created = snapshot('draft', undefined, { step: 0 });
      await store.create(h, created);
      const tx = await store.beginTransaction();
      expect(await tx.lock({ key: h, allowedStates: ['draft'] })).toStrictEqual({ status: 'claimed', snapshot: created });
      const id = randomUUID();
      await business.write(tx.manager, id);
      const submitted = record(h, 'draft', 'review', 'SUBMIT');
      const moved = snapshot('review', undefined, { step: 1 });
      await tx.commit(h, { snapshot: moved, record: submitted });
      expect(await business.count(id)).toBe(1);
      expect(await store.load(h)).toStrictEqual(moved);
      expect(await store.history(h)).toEqual([submitted]);
      await expect(tx.commit(h, { snapshot: snapshot('approved') })).rejects.toThrow();
    });

    it('inserts a new instance on commit with { insert: true }', async () => {
      const h = handle();
      const tx = await store.beginTransaction();
      const id = randomUUID();
      await business.write(tx.manager, id);
      const pending = snapshot('pending', 'alice', { amount: 5 });
      await tx.commit(h, { snapshot: pending, record: record(h, null, 'pending', null) }, { insert: true });
      expect(await store.load(h)).toStrictEqual(pending);
      expect(await business.count(id)).toBe(1);
      expect(await store.history(h)).toHaveLength(1);
    });

    it('never lets a second transaction take a locked instance (busy, or waits and sees the new state)', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      const first = await store.beginTransaction();
      expect((await first.lock({ key: h, allowedStates: ['draft'] })).status).toBe('claimed');
      const second = (async () => {
        const tx = await store.beginTransaction();
        try {
          return await tx.lock({ key: h, allowedStates: ['draft'] });
        } finally {
          await tx.rollback();
        }
      })();
      const early = await Promise.race([second, sleep(300).then(() => undefined)]);
      if (early) expect(early).toEqual({ status: 'busy', state: 'draft' });
      await first.commit(h, { snapshot: snapshot('review') });
      expect(['busy', 'forbidden']).toContain((await second).status);
    });

    it('judges a lock as a claim: exact states, any state without allowedStates, the owner and team rule', async () => {
      const lockOnce = async (request: WorkflowLockRequest): Promise<WorkflowClaimResult> => {
        const tx = await store.beginTransaction();
        try {
          return await tx.lock(request);
        } finally {
          await tx.rollback();
        }
      };
      const legal = handle();
      const created = snapshot('review.legal', undefined, { reviewer: 'bob' });
      await store.create(legal, created);
      expect(await lockOnce({ key: legal, allowedStates: ['review'] })).toEqual({ status: 'forbidden', state: 'review.legal' });
      expect(await lockOnce({ key: legal, allowedStates: ['review.legal'] })).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await lockOnce({ key: legal })).toStrictEqual({ status: 'claimed', snapshot: created });
      expect(await lockOnce({ key: legal, owner: 'bob' })).toStrictEqual({ status: 'claimed', snapshot: created });
      const owned = handle();
      await store.create(owned, snapshot('draft', 'alice'));
      expect(await lockOnce({ key: owned, allowedStates: ['draft'] })).toEqual({ status: 'unknown' });
      expect(await lockOnce({ key: owned, allowedStates: ['draft'], owner: 'bob' })).toEqual({ status: 'unknown' });
      expect(await lockOnce({ key: owned, allowedStates: ['review'], owner: 'alice' })).toEqual({
        status: 'forbidden',
        state: 'draft',
      });
      expect(await lockOnce({ key: owned, allowedStates: ['draft'], owner: 'alice' })).toMatchObject({
        status: 'claimed',
        snapshot: { state: 'draft', owner: 'alice' },
      });
      expect(await lockOnce({ key: handle() })).toEqual({ status: 'unknown' });
      const teams = handle();
      const team: WorkflowSnapshot = { ...snapshot('draft', 'alice'), team: 'acme' };
      await store.create(teams, team);
      expect(await lockOnce({ key: teams, allowedStates: ['draft'], owner: 'eve', team: 'globex' })).toEqual({ status: 'unknown' });
      expect(await lockOnce({ key: teams, allowedStates: ['draft'], owner: 'bob', team: 'acme' })).toStrictEqual({
        status: 'claimed',
        snapshot: team,
      });
      expect(await lockOnce({ key: teams, allowedStates: ['draft'], owner: 'eve', anyOwner: true })).toStrictEqual({
        status: 'claimed',
        snapshot: team,
      }); // Exactly: a trailing space is another principal, and another team.
      expect(await lockOnce({ key: owned, allowedStates: ['draft'], owner: 'alice ' })).toEqual({ status: 'unknown' });
      expect(await lockOnce({ key: teams, allowedStates: ['draft'], owner: 'bob', team: 'acme ' })).toEqual({ status: 'unknown' });
    });

    it('reports busy while a lease holds the instance', async () => {
      const h = handle();
      await store.create(h, snapshot('draft'));
      await store.claim(claim(h, ['draft']));
      const tx = await store.beginTransaction();
      try {
        expect(await tx.lock({ key: h, allowedStates: ['draft'] })).toEqual({ status: 'busy', state: 'draft' });
      } finally {
        await tx.rollback();
      }
    });

    it('starts 10 new instances concurrently from createWith (no deadlock between their inserts)', async () => {
      const calls = Array.from({ length: 10 }, () => ({ h: handle(), id: randomUUID() }));
      const results = await Promise.all(
        calls.map(async ({ h, id }): Promise<WorkflowClaimResult> => {
          const tx = await store.beginTransaction();
          try {
            const locked = await tx.lock({ key: h, allowedStates: ['draft'], createWith: snapshot('draft') });
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
        Array.from({ length: 10 }, async (): Promise<WorkflowClaimResult> => {
          const tx = await store.beginTransaction();
          try {
            const locked = await tx.lock({ key: h, allowedStates: ['draft'] });
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

function snapshot(state: string, owner?: string, context?: Record<string, unknown>): WorkflowSnapshot {
  return {
    state,
    updatedAt: new Date().toISOString(),
    ...(context === undefined ? {} : { context }),
    ...(owner === undefined ? {} : { owner }),
  };
}

function claim(h: string, allowedStates: string[] | undefined, extra: Partial<WorkflowClaimRequest> = {}): WorkflowClaimRequest {
  return { key: h, ...(allowedStates === undefined ? {} : { allowedStates }), token: randomUUID(), leaseMs: 60_000, ...extra };
}

function record(h: string, from: string | null, to: string, event: string | null): WorkflowTransitionRecord {
  return {
    machine: 'invoice',
    key: h,
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
