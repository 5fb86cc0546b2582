import type { WorkflowSnapshot, FsmStateStore } from './fsm-state-store.interface.js';
import { FsmStoreAdapter } from './fsm-store.adapter.js';
import { InMemoryFsmStateStore } from './in-memory-fsm-state.store.js';
import { storeCannotListWaiting, storeCannotRead } from './stores.messages.js';

/** The smallest store a user may write: `load` and `save` over a map. */
class MapStore implements FsmStateStore {
  readonly snapshots = new Map<string, WorkflowSnapshot>();

  async load(handle: string): Promise<WorkflowSnapshot | undefined> {
    return this.snapshots.get(handle);
  }

  async save(handle: string, snapshot: WorkflowSnapshot): Promise<void> {
    this.snapshots.set(handle, snapshot);
  }
}

const snapshot = (state: string): WorkflowSnapshot => ({ state, updatedAt: new Date().toISOString() });
const record = { machine: 'invoice', key: 'invoice:1', from: null, to: 'draft', event: null, tool: 'start', principal: null, at: '' };

describe('FsmStoreAdapter', () => {
  describe('around a plain load/save store', () => {
    let store: MapStore;
    let adapter: FsmStoreAdapter;

    beforeEach(() => {
      store = new MapStore();
      adapter = new FsmStoreAdapter(store);
    });

    it('supports neither transactions, nor deletes, nor sweeps, nor reads', () => {
      expect(adapter.supports).toEqual({
        transactions: false,
        delete: false,
        sweep: false,
        read: false,
        waiting: false,
        attempts: false,
        timers: false,
        events: false,
      });
      expect(adapter.name).toBe('MapStore');
    });

    it('refuses the console reads, naming the methods a store implements', async () => {
      await expect(adapter.listInstances({ limit: 10 })).rejects.toThrow(storeCannotRead('MapStore'));
      await expect(adapter.listWaiting({ machine: 'payment', states: ['refund_pending'], limit: 10 })).rejects.toThrow(
        storeCannotListWaiting('MapStore'),
      );
      await expect(adapter.recentHistory('invoice:1', 10)).rejects.toThrow(/listInstances\(query\) and recentHistory\(key, limit\)/);
    });

    it('runs the calls on one instance one after the other, and commits with save', async () => {
      await adapter.create('invoice:1', snapshot('draft'), record);
      const first = await adapter.acquire({ key: 'invoice:1', allowedStates: ['draft'], token: 'a', leaseMs: 1000 });
      expect(first.status).toBe('claimed');
      let secondSettled = false;
      const second = adapter
        .acquire({ key: 'invoice:1', allowedStates: ['draft'], token: 'b', leaseMs: 1000 })
        .finally(() => (secondSettled = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(secondSettled).toBe(false);
      if (first.status !== 'claimed') throw new Error('not claimed');
      expect(await first.lock.commit({ snapshot: snapshot('review') })).toBe(true);
      expect(await second).toEqual({ status: 'forbidden', state: 'review' });
      expect(store.snapshots.get('invoice:1')?.state).toBe('review');
    });

    it('reads many states with one load each, leaving absent instances out', async () => {
      await store.save('invoice:1', snapshot('draft'));
      expect(await adapter.loadStates(['invoice:1', 'invoice:2'])).toEqual(new Map([['invoice:1', 'draft']]));
    });

    it('answers no history, deletes nothing and sweeps nothing', async () => {
      await store.save('invoice:1', snapshot('draft'));
      expect(await adapter.history('invoice:1')).toEqual([]);
      await adapter.delete(['invoice:1']);
      expect(store.snapshots.has('invoice:1')).toBe(true);
      expect(await adapter.sweep({ idle: { machines: ['invoice'], before: Date.now() + 1000 }, limit: 10 })).toBe(0);
    });
  });

  describe('around an atomic store', () => {
    let store: InMemoryFsmStateStore;
    let adapter: FsmStoreAdapter;

    beforeEach(() => {
      store = new InMemoryFsmStateStore({ history: true });
      adapter = new FsmStoreAdapter(store);
    });

    afterEach(() => store.onApplicationShutdown());

    it('supports deletes, sweeps and reads, not transactions; attempts once the store keeps them', () => {
      expect(adapter.supports).toEqual({
        transactions: false,
        delete: true,
        sweep: true,
        read: true,
        waiting: true,
        attempts: false,
        timers: true,
        events: true,
      });
      const keeping = new InMemoryFsmStateStore({ attempts: true });
      expect(new FsmStoreAdapter(keeping).supports.attempts).toBe(true);
      keeping.onApplicationShutdown();
    });

    it('claims with a lease: a second call is busy, not queued', async () => {
      await adapter.create('invoice:1', snapshot('draft'), record);
      const first = await adapter.acquire({ key: 'invoice:1', allowedStates: ['draft'], token: 'a', leaseMs: 1000 });
      expect(first.status).toBe('claimed');
      expect(await adapter.acquire({ key: 'invoice:1', allowedStates: ['draft'], token: 'b', leaseMs: 1000 })).toEqual({
        status: 'busy',
        state: 'draft',
      });
      if (first.status === 'claimed') await first.lock.release();
    });

    it('creates with history and deletes through the store', async () => {
      await adapter.create('invoice:1', snapshot('draft'), record);
      expect(await adapter.history('invoice:1')).toHaveLength(1);
      await adapter.delete(['invoice:1']);
      expect(await adapter.load('invoice:1')).toBeUndefined();
    });
  });
});
