import { InstanceStateCache } from './instance-state.cache.js';

/** A store as the cache sees it: states by key, and every read it was asked for. */
class Store {
  readonly states = new Map<string, string>();
  readonly reads: string[][] = [];

  read = async (keys: string[]): Promise<Map<string, string>> => {
    this.reads.push(keys);
    return new Map(keys.flatMap((key) => (this.states.has(key) ? [[key, this.states.get(key)!] as const] : [])));
  };
}

describe('InstanceStateCache', () => {
  let now: number;
  let store: Store;
  const cache = (maxInstances = 100, maxAgeMs = 60_000) => new InstanceStateCache(maxInstances, maxAgeMs, () => now);
  const states = async (target: InstanceStateCache, keys: string[], fresh = false) =>
    Object.fromEntries((await target.states(keys, store.read, fresh)).states);

  beforeEach(() => {
    now = 1_000_000;
    store = new Store();
    store.states.set('payment:a', 'authorized');
    store.states.set('payment:b', 'captured');
  });

  it('reads the store only for what it does not hold, and leaves absent instances out', async () => {
    const target = cache();
    expect(await states(target, ['payment:a', 'payment:gone'])).toEqual({ 'payment:a': 'authorized' });
    expect(await states(target, ['payment:a', 'payment:b', 'payment:gone'])).toEqual({
      'payment:a': 'authorized',
      'payment:b': 'captured',
    });
    expect(store.reads).toEqual([['payment:a', 'payment:gone'], ['payment:b']]);
  });

  it('keeps what this process stored as it stored it, and logs it as a change', async () => {
    const target = cache();
    await states(target, ['payment:a']);
    const epoch = target.epoch;
    target.stored('payment:a', 'captured');
    target.stored('payment:c', 'authorized');
    expect(await states(target, ['payment:a', 'payment:c'])).toEqual({ 'payment:a': 'captured', 'payment:c': 'authorized' });
    expect(store.reads).toHaveLength(1);
    expect(target.changedSince(epoch)).toEqual(['payment:a', 'payment:c']);
    target.stored('payment:a', null);
    expect(await states(target, ['payment:a'])).toEqual({});
    expect(store.reads).toHaveLength(1);
  });

  it('reads again an instance another process changed (a relayed change), and logs it', async () => {
    const target = cache();
    await states(target, ['payment:a', 'payment:b']);
    const epoch = target.epoch;
    store.states.set('payment:a', 'voided');
    target.invalidate('payment:a');
    expect(target.changedSince(epoch)).toEqual(['payment:a']);
    expect(await states(target, ['payment:a', 'payment:b'])).toEqual({ 'payment:a': 'voided', 'payment:b': 'captured' });
    expect(store.reads.at(-1)).toEqual(['payment:a']);
  });

  it('never caches the answer of a read that a change of the same instance overtook', async () => {
    const target = cache();
    let answer!: () => void;
    const slow = (keys: string[]) =>
      new Promise<Map<string, string>>((resolve) => (answer = () => resolve(new Map([[keys[0], 'authorized']]))));
    const reading = target.states(['payment:a'], slow);
    target.invalidate('payment:a');
    answer();
    await reading;
    store.states.set('payment:a', 'captured');
    expect(await states(target, ['payment:a'])).toEqual({ 'payment:a': 'captured' });

    const overtaken = target.states(['payment:b'], slow);
    target.stored('payment:b', 'refunded');
    answer();
    expect(Object.fromEntries((await overtaken).states)).toEqual({ 'payment:b': 'refunded' });
    expect(await states(target, ['payment:b'])).toEqual({ 'payment:b': 'refunded' });
  });

  it('reads again a cached state that a call found to be otherwise, and logs it', async () => {
    const target = cache();
    await states(target, ['payment:a', 'payment:b']);
    const epoch = target.epoch;
    target.observed('payment:b', 'captured');
    expect(target.changedSince(epoch)).toEqual([]);
    store.states.set('payment:a', 'voided');
    target.observed('payment:a', 'voided');
    expect(target.changedSince(epoch)).toEqual(['payment:a']);
    expect(await states(target, ['payment:a', 'payment:b'])).toEqual({ 'payment:a': 'voided', 'payment:b': 'captured' });
    expect(store.reads.at(-1)).toEqual(['payment:a']);
  });

  it('evicts the least recently used instance beyond its bound', async () => {
    const target = cache(2);
    store.states.set('payment:c', 'authorized');
    await states(target, ['payment:a', 'payment:b']);
    await states(target, ['payment:a']);
    await states(target, ['payment:c']);
    expect(target.size).toBe(2);
    store.reads.length = 0;
    await states(target, ['payment:a', 'payment:b', 'payment:c']);
    expect(store.reads).toEqual([['payment:b']]);
  });

  it('reads again a state older than maxAgeMs, and everything when asked for fresh states', async () => {
    const target = cache(100, 1000);
    await states(target, ['payment:a']);
    now += 500;
    target.stored('payment:b', 'captured');
    now += 600;
    const found = await target.states(['payment:a', 'payment:b'], store.read);
    expect(store.reads.at(-1)).toEqual(['payment:a']);
    expect(found.oldest).toBe(now - 600);
    await states(target, ['payment:a', 'payment:b'], true);
    expect(store.reads.at(-1)).toEqual(['payment:a', 'payment:b']);
  });

  it('forgets everything on a clear (a relay reconnected): every session reads all its states again', async () => {
    const target = cache();
    await states(target, ['payment:a', 'payment:b']);
    const epoch = target.epoch;
    target.clear();
    expect(target.changedSince(epoch)).toBeUndefined();
    expect(target.changedSince(target.epoch)).toEqual([]);
    await states(target, ['payment:a', 'payment:b']);
    expect(store.reads.at(-1)).toEqual(['payment:a', 'payment:b']);
  });

  it('forgets the states of some machines only, when the clear names them', async () => {
    const target = cache();
    store.states.set('invoice:session:s', 'draft');
    await states(target, ['payment:a', 'invoice:session:s']);
    target.clear((key) => key.startsWith('invoice:'));
    await states(target, ['payment:a', 'invoice:session:s']);
    expect(store.reads.at(-1)).toEqual(['invoice:session:s']);
  });

  it('says when its log no longer reaches back to an epoch', () => {
    const target = cache();
    for (let index = 0; index < 5000; index++) target.stored(`payment:${index}`, 'authorized');
    expect(target.changedSince(0)).toBeUndefined();
    expect(target.changedSince(4999)).toEqual(['payment:4999']);
  });
});
