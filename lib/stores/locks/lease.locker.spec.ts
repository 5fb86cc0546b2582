import { jest } from '@jest/globals';
import { InMemoryFsmStateStore } from '../in-memory-fsm-state.store.js';
import { LeaseLocker } from './lease.locker.js';

/** The in-memory store, counting the renewals it was asked for. */
class RenewCountingStore extends InMemoryFsmStateStore {
  renewals = 0;

  override renew(handle: string, token: string, leaseMs: number): Promise<boolean> {
    this.renewals += 1;
    return super.renew(handle, token, leaseMs);
  }
}

describe('LeaseLocker', () => {
  const LEASE_MS = 300;
  let store: RenewCountingStore;
  let locker: LeaseLocker;
  let storeTimers: number;

  const snapshot = (state: string) => ({ state, updatedAt: new Date().toISOString() });
  const claim = async (handle: string, token = `t-${handle}`) => {
    await store.save(handle, snapshot('draft'));
    const outcome = await locker.acquire({ key: handle, allowedStates: ['draft'], token, leaseMs: LEASE_MS });
    if (outcome.status !== 'claimed') throw new Error(`not claimed: ${outcome.status}`);
    return outcome.lock;
  };
  /** Timers this locker has armed (the store's sweep timer aside). */
  const lockerTimers = () => jest.getTimerCount() - storeTimers;

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    store = new RenewCountingStore({ clock: () => Date.now() });
    storeTimers = jest.getTimerCount();
    locker = new LeaseLocker(store);
  });

  afterEach(() => {
    store.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('never renews a claim let go within a third of its lease; its timer stops at its first turn', async () => {
    const lock = await claim('invoice:fast');
    await jest.advanceTimersByTimeAsync(LEASE_MS / 3 - 1);
    await lock.commit({ snapshot: snapshot('review') });
    await jest.advanceTimersByTimeAsync(1);
    expect(lockerTimers()).toBe(0);
    await jest.advanceTimersByTimeAsync(LEASE_MS * 3);
    expect(store.renewals).toBe(0);
  });

  it('arms one timer for a stream of fast claims, not one per claim', async () => {
    const armed = jest.spyOn(globalThis, 'setTimeout');
    for (let i = 0; i < 20; i++) {
      const lock = await claim(`invoice:quick-${i}`);
      await lock.commit({ snapshot: snapshot('review') });
      await jest.advanceTimersByTimeAsync(1);
    }
    expect(armed).toHaveBeenCalledTimes(1);
    expect(store.renewals).toBe(0);
    armed.mockRestore();
  });

  it('renews a slow claim every third of its lease, so it outlives the lease and commits', async () => {
    const lock = await claim('invoice:slow');
    await jest.advanceTimersByTimeAsync(LEASE_MS * 3);
    expect(store.renewals).toBe(9);
    const rival = await locker.acquire({ key: 'invoice:slow', allowedStates: ['draft'], token: 'rival', leaseMs: LEASE_MS });
    expect(rival).toEqual({ status: 'busy', state: 'draft' });
    expect(await lock.commit({ snapshot: snapshot('review') })).toBe(true);
    await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(lockerTimers()).toBe(0);
  });

  it('serves every held claim with one timer, renewing only those that came due', async () => {
    const first = await claim('invoice:first');
    await jest.advanceTimersByTimeAsync(LEASE_MS / 6);
    const others = await Promise.all(Array.from({ length: 50 }, (_, i) => claim(`invoice:${i}`)));
    expect(lockerTimers()).toBe(1);
    await jest.advanceTimersByTimeAsync(LEASE_MS / 6);
    expect(store.renewals).toBe(1);
    await Promise.all(others.map((lock) => lock.release()));
    expect(lockerTimers()).toBe(1);
    await first.release();
    await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(lockerTimers()).toBe(0);
  });

  it('does not keep the process alive while claims are held', async () => {
    const lock = await claim('invoice:held');
    expect(locker['timer']?.hasRef()).toBe(false);
    await lock.release();
  });

  it('stops renewing a claim whose lease was lost', async () => {
    await claim('invoice:lost', 'lost');
    await store.release('invoice:lost', 'lost');
    await store.save('invoice:lost', snapshot('review'));
    await store.claim({ key: 'invoice:lost', token: 'other', leaseMs: LEASE_MS });
    await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(store.renewals).toBe(1);
    await jest.advanceTimersByTimeAsync(LEASE_MS / 3);
    expect(lockerTimers()).toBe(0);
    await jest.advanceTimersByTimeAsync(LEASE_MS * 3);
    expect(store.renewals).toBe(1);
  });
});
