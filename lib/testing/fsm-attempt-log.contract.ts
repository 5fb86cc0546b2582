/// <reference types="jest" />
import { randomBytes } from 'node:crypto';
import type { AtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import { isWorkflowAttemptLog, type FsmAttemptLog, type WorkflowAttemptRecord } from '../stores/workflow-attempt.interface.js';
import type { FsmStoreFactory, FsmStoreFixture } from './fsm-state-store.contract.js';

/**
 * The cases of `FsmAttemptLog` (refused and declined calls, for the console), for stores
 * that keep attempts: `factory` is called with `{ history: true, attempts: true }` and the store's
 * bound left at `maxAttempts` per instance. An attempt is written only on an instance that exists
 * and that its caller may see, never beyond the bound, and goes with its instance.
 *
 * @example
 * describeFsmAttemptLogContract('MyStore', factory, 50);
 */
export function describeFsmAttemptLogContract(name: string, factory: FsmStoreFactory, maxAttempts: number): void {
  describe(`${name}: FsmAttemptLog contract`, () => {
    let fixture: FsmStoreFixture;
    let store: AtomicFsmStateStore & FsmAttemptLog;
    const key = () => `attempt:${randomBytes(16).toString('base64url')}`;
    const attempt = (
      handle: string,
      code = 'FORBIDDEN',
      at = new Date().toISOString(),
      principal: string | null = 'alice',
    ): WorkflowAttemptRecord => ({
      machine: 'attempt',
      key: handle,
      tool: 'attempt.capture',
      code,
      principal,
      at,
    });

    beforeEach(async () => {
      fixture = await factory({ history: true, attempts: true });
      if (!isWorkflowAttemptLog(fixture.store)) {
        await fixture.cleanup();
        throw new Error(`${name} keeps no attempts: it does not implement FsmAttemptLog, or its attempts option is off.`);
      }
      store = fixture.store as AtomicFsmStateStore & FsmAttemptLog;
    });
    afterEach(() => fixture.cleanup());

    it('records an attempt on an instance and answers the most recent ones, oldest first, as recorded', async () => {
      const h = key();
      await store.create(h, { state: 'authorized', updatedAt: new Date().toISOString() });
      const first = attempt(h, 'FORBIDDEN', new Date(Date.UTC(2026, 0, 1, 10)).toISOString(), null);
      const second = attempt(h, 'DECLINED', new Date(Date.UTC(2026, 0, 1, 11)).toISOString());
      expect(await store.recordAttempt(first, undefined)).toBe(true);
      expect(await store.recordAttempt(second, 'alice')).toBe(true);
      expect(await store.recentAttempts(h, 10)).toEqual([first, second]);
      expect(await store.recentAttempts(h, 1)).toEqual([second]);
    });

    it('keeps what the refusal said and the arguments as given, and a record without them reads back without them', async () => {
      const h = key();
      await store.create(h, { state: 'authorized', updatedAt: new Date().toISOString() });
      const detailed: WorkflowAttemptRecord = {
        ...attempt(h, 'FORBIDDEN', new Date(Date.UTC(2026, 0, 2, 10)).toISOString()),
        message: 'FORBIDDEN: "attempt.capture" is not available while attempt is "authorized". Allowed now: attempt.void.',
        args: { paymentId: 'pay_1', amount: 12.5, note: 'ünïcødé ✓', final: true, nothing: null, nested: '{"a":[1,2]}' },
      };
      const plain = attempt(h, 'BUSY', new Date(Date.UTC(2026, 0, 2, 11)).toISOString());
      expect(await store.recordAttempt(detailed, 'alice')).toBe(true);
      expect(await store.recordAttempt(plain, 'alice')).toBe(true);
      const [first, second] = await store.recentAttempts(h, 10);
      expect(first).toEqual(detailed);
      expect(second).toEqual(plain);
      expect(second).not.toHaveProperty('message');
      expect(second).not.toHaveProperty('args');
      // What a reader gets is a copy: changing it changes nothing stored.
      first.args!.amount = 0;
      expect((await store.recentAttempts(h, 10))[0].args).toEqual(detailed.args);
    });

    it('writes nothing for a key no instance has (a forged handle)', async () => {
      const forged = key();
      expect(await store.recordAttempt(attempt(forged), undefined)).toBe(false);
      expect(await store.recentAttempts(forged, 10)).toEqual([]);
    });

    it("writes nothing on another principal's instance: only its owner, or anyone on an instance without owner", async () => {
      const [owned, open] = [key(), key()];
      await store.create(owned, { state: 'authorized', updatedAt: new Date().toISOString(), owner: 'alice' });
      await store.create(open, { state: 'authorized', updatedAt: new Date().toISOString() });
      expect(await store.recordAttempt(attempt(owned, 'FORBIDDEN', undefined, 'bob'), 'bob')).toBe(false);
      expect(await store.recordAttempt(attempt(owned, 'FORBIDDEN', undefined, null), undefined)).toBe(false);
      expect(await store.recordAttempt(attempt(owned), 'alice')).toBe(true);
      expect(await store.recordAttempt(attempt(open, 'BUSY', undefined, 'bob'), 'bob')).toBe(true);
      expect((await store.recentAttempts(owned, 10)).map((row) => row.principal)).toEqual(['alice']);
      expect((await store.recentAttempts(open, 10)).map((row) => row.principal)).toEqual(['bob']);
    });

    it("writes a teammate's attempt on an instance of its team, and nothing for another team or an owner's instance without team", async () => {
      const [teams, owners] = [key(), key()];
      await store.create(teams, { state: 'authorized', updatedAt: new Date().toISOString(), owner: 'alice', team: 'acme' });
      await store.create(owners, { state: 'authorized', updatedAt: new Date().toISOString(), owner: 'alice' });
      expect(await store.recordAttempt(attempt(teams, 'FORBIDDEN', undefined, 'eve'), 'eve', 'globex')).toBe(false);
      expect(await store.recordAttempt(attempt(teams, 'FORBIDDEN', undefined, 'bob'), 'bob', 'acme')).toBe(true);
      expect(await store.recordAttempt(attempt(owners, 'FORBIDDEN', undefined, 'bob'), 'bob', 'acme')).toBe(false);
      expect((await store.recentAttempts(teams, 10)).map((row) => row.principal)).toEqual(['bob']);
      expect(await store.recentAttempts(owners, 10)).toEqual([]);
    });

    it('compares the caller and its team exactly: a trailing space is another principal, and another team', async () => {
      const [owned, teams] = [key(), key()];
      await store.create(owned, { state: 'authorized', updatedAt: new Date().toISOString(), owner: 'solo' });
      await store.create(teams, { state: 'authorized', updatedAt: new Date().toISOString(), owner: 'alice', team: 'acme' });
      expect(await store.recordAttempt(attempt(owned, 'FORBIDDEN', undefined, 'solo '), 'solo ')).toBe(false);
      expect(await store.recordAttempt(attempt(teams, 'FORBIDDEN', undefined, 'bob'), 'bob', 'acme ')).toBe(false);
      expect(await store.recentAttempts(owned, 10)).toEqual([]);
      expect(await store.recentAttempts(teams, 10)).toEqual([]);
    });

    it(`keeps at most ${maxAttempts} attempts of an instance when 300 are recorded at once`, async () => {
      const h = key();
      await store.create(h, { state: 'authorized', updatedAt: new Date().toISOString() });
      const written = await Promise.allSettled(
        Array.from({ length: 300 }, (_, i) => store.recordAttempt(attempt(h, `CODE_${i}`), 'alice')),
      );
      expect(written.filter((outcome) => outcome.status === 'fulfilled' && outcome.value).length).toBeGreaterThan(maxAttempts);
      expect((await store.recentAttempts(h, 1_000)).length).toBeLessThanOrEqual(maxAttempts);
    }, 60_000);

    it(`keeps at most ${maxAttempts} attempts per instance, the most recent`, async () => {
      const h = key();
      await store.create(h, { state: 'authorized', updatedAt: new Date().toISOString() });
      const base = Date.UTC(2026, 0, 1);
      for (let i = 0; i < maxAttempts + 5; i++)
        await store.recordAttempt(attempt(h, `CODE_${i}`, new Date(base + i).toISOString()), 'alice');
      const kept = await store.recentAttempts(h, maxAttempts + 10);
      expect(kept).toHaveLength(maxAttempts);
      expect(kept[0].code).toBe('CODE_5');
      expect(kept.at(-1)!.code).toBe(`CODE_${maxAttempts + 4}`);
    }, 60_000);

    it('forgets the attempts of a deleted or swept instance, not those of others', async () => {
      const [deleted, swept, kept] = [key(), key(), key()];
      const old = new Date(Date.UTC(2020, 0, 1)).toISOString();
      await store.create(deleted, { state: 'authorized', updatedAt: new Date().toISOString() });
      await store.create(swept, { state: 'voided', updatedAt: old });
      await store.create(kept, { state: 'authorized', updatedAt: new Date().toISOString() });
      for (const h of [deleted, swept, kept]) await store.recordAttempt(attempt(h), 'alice');
      await store.delete!([deleted]);
      await store.sweep!({ finished: { machines: [{ machine: 'attempt', states: ['voided'] }], before: Date.UTC(2021, 0, 1) }, limit: 10 });
      expect(await store.recentAttempts(deleted, 10)).toEqual([]);
      expect(await store.recentAttempts(swept, 10)).toEqual([]);
      expect(await store.recentAttempts(kept, 10)).toHaveLength(1);
      // A new instance under a deleted key starts without the old attempts.
      await store.create(deleted, { state: 'authorized', updatedAt: new Date().toISOString() });
      expect(await store.recentAttempts(deleted, 10)).toEqual([]);
    });
  });
}
