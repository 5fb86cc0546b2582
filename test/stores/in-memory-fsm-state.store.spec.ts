import { jest } from '@jest/globals';
import { storeFull } from '../../lib/stores/stores.messages.js';
import { InMemoryFsmStateStore } from '../../lib/stores/in-memory-fsm-state.store.js';
import {
  describeFsmAttemptLogContract,
  describeFsmReceiptLogContract,
  describeFsmStateReaderContract,
  describeFsmStateStoreContract,
  type FsmStoreFactory,
} from '../../lib/testing.js';

const inMemory: FsmStoreFactory = async ({ history, attempts }) => {
  const store = new InMemoryFsmStateStore({ history, attempts });
  return { store, cleanup: async () => store.onApplicationShutdown() };
};
describeFsmStateStoreContract('InMemoryFsmStateStore', inMemory);
describeFsmStateReaderContract('InMemoryFsmStateStore', inMemory);
describeFsmAttemptLogContract('InMemoryFsmStateStore', inMemory, 50);
describeFsmReceiptLogContract('InMemoryFsmStateStore', async (options) => {
  const store = new InMemoryFsmStateStore(options);
  return { store, cleanup: async () => store.onApplicationShutdown() };
});

describe('InMemoryFsmStateStore bounds', () => {
  const snapshot = (state: string) => ({ state, updatedAt: new Date(0).toISOString() });
  let now: number;
  let store: InMemoryFsmStateStore;
  const open = (options: ConstructorParameters<typeof InMemoryFsmStateStore>[0]) =>
    (store = new InMemoryFsmStateStore({ clock: () => now, ...options }));

  beforeEach(() => (now = 1_000_000));
  afterEach(() => store.onApplicationShutdown());

  it('drops an instance idle for idleTtlMs', async () => {
    open({ idleTtlMs: 1_000 });
    await store.create('invoice:a', snapshot('draft'));
    now += 999;
    expect(await store.load('invoice:a')).toBeDefined();
    now += 1;
    expect(await store.load('invoice:a')).toBeUndefined();
    expect(await store.claim({ key: 'invoice:a', allowedStates: ['draft'], token: 't', leaseMs: 10 })).toEqual({
      status: 'unknown',
    });
  });

  it('counts claims and writes as activity, and never drops an instance with a live lease', async () => {
    open({ idleTtlMs: 1_000 });
    await store.create('invoice:a', snapshot('draft'));
    now += 900;
    await store.claim({ key: 'invoice:a', allowedStates: ['draft'], token: 't', leaseMs: 5_000 });
    now += 4_000;
    expect((await store.load('invoice:a'))?.state).toBe('draft');
    expect(await store.commit('invoice:a', 't', { snapshot: snapshot('review') })).toBe(true);
    now += 999;
    expect((await store.load('invoice:a'))?.state).toBe('review');
  });

  it('refuses a new instance when full of live ones, and makes room by dropping idle ones first', async () => {
    open({ maxEntries: 2, idleTtlMs: 1_000 });
    await store.create('invoice:a', snapshot('draft'));
    await store.save('invoice:b', snapshot('draft'));
    await expect(store.create('invoice:c', snapshot('draft'))).rejects.toThrow(storeFull(2));
    await expect(store.save('invoice:c', snapshot('draft'))).rejects.toThrow(storeFull(2));
    await expect(
      store.claim({ key: 'invoice:c', allowedStates: ['draft'], token: 't', leaseMs: 10, createWith: snapshot('draft') }),
    ).rejects.toThrow(storeFull(2));
    expect((await store.loadMany(['invoice:a', 'invoice:b'])).size).toBe(2);
    now += 500;
    await store.save('invoice:a', snapshot('review'));
    now += 500;
    await store.create('invoice:c', snapshot('draft'));
    expect((await store.loadMany(['invoice:a', 'invoice:b', 'invoice:c'])).size).toBe(2);
    expect(await store.load('invoice:b')).toBeUndefined();
  });

  it('keeps at most maxHistoryPerHandle rows per instance, newest last', async () => {
    open({ history: true, maxHistoryPerHandle: 2 });
    const row = (to: string) => ({
      machine: 'invoice',
      key: 'invoice:a',
      from: null,
      to,
      event: null,
      tool: 'invoice.start',
      principal: null,
      at: new Date(now).toISOString(),
    });
    await store.create('invoice:a', snapshot('a'), row('a'));
    for (const state of ['b', 'c']) {
      await store.claim({ key: 'invoice:a', allowedStates: ['a', 'b'], token: state, leaseMs: 10 });
      await store.commit('invoice:a', state, { snapshot: snapshot(state), record: row(state) });
    }
    expect((await store.history('invoice:a')).map((record) => record.to)).toEqual(['b', 'c']);
  });

  it('does not keep the process alive with its sweep timer', () => {
    open({});
    expect(store['sweepTimer'].hasRef()).toBe(false);
  });

  it('sweeps idle instances on a timer that shutdown clears', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      open({ idleTtlMs: 5_000 });
      await store.create('invoice:a', snapshot('draft'));
      now += 5_000;
      jest.advanceTimersByTime(5_000);
      expect(store['entries'].size).toBe(0);
      expect(jest.getTimerCount()).toBe(1);
      store.onApplicationShutdown();
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });
});
