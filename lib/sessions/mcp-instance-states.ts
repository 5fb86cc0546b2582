import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { WorkflowTransitionBus, type WorkflowTransitionEvent } from '../relays/workflow-transition.bus.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { InstanceStateCache, type CachedStates } from './instance-state.cache.js';
import { MCP_STATE_CACHE_OPTIONS, type McpResolvedStateCacheOptions } from './state-cache-options.interface.js';

/**
 * Where menus get the states of the instances they show: with `stateCache` on, this process's
 * {@link InstanceStateCache}, kept by the transition bus (what this process stored is cached
 * as it stored it; a change another process made, told by the relay, drops the cached state
 * so the next list reads it; a relay that may have missed changes drops them all), the store
 * on a miss; with it off, the store every time.
 */
@Injectable()
export class McpInstanceStates implements OnApplicationShutdown {
  private readonly cache?: InstanceStateCache;
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    @Inject(MCP_STATE_CACHE_OPTIONS) readonly options: McpResolvedStateCacheOptions,
    bus: WorkflowTransitionBus,
    private readonly store: FsmStoreAdapter,
  ) {
    if (!options.enabled) {
      return;
    }
    const cache = (this.cache = new InstanceStateCache(options.maxInstances, options.maxAgeMs));
    this.unsubscribe.push(
      bus.subscribe((event) => this.learn(cache, event)),
      bus.onResync((machines) => cache.clear(machines && ((key) => machines.includes(parseInstanceKey(key).machine)))),
    );
  }

  onApplicationShutdown(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
  }

  /** A position in the changes told so far, for {@link changedSince}. */
  get epoch(): number {
    return this.cache?.epoch ?? 0;
  }

  /**
   * The instances that changed since `epoch` (a menu that knew the states as of then reads only
   * these); `undefined` when it must read all its states: no epoch, no cache, or too far back.
   */
  changedSince(epoch: number | undefined): string[] | undefined {
    return epoch === undefined ? undefined : this.cache?.changedSince(epoch);
  }

  /** A call found instance `storeKey` in `state` (`null`: gone); a cached state that differs is read again. */
  observed(storeKey: string, state: string | null): void {
    this.cache?.observed(storeKey, state);
  }

  /** The states of `keys` (absent instances left out), and when the oldest was known; `fresh`: all read from the store. */
  async states(keys: readonly string[], fresh = false): Promise<CachedStates> {
    if (keys.length === 0) {
      return { states: new Map(), oldest: Infinity };
    }
    if (!this.cache) {
      return { states: await this.store.loadStates(keys), oldest: Date.now() };
    }
    return this.cache.states(keys, (missing) => this.store.loadStates(missing), fresh);
  }

  private learn(cache: InstanceStateCache, { storeKey, state, relayed }: WorkflowTransitionEvent): void {
    if (relayed) {
      cache.invalidate(storeKey);
    } else {
      cache.stored(storeKey, state);
    }
  }
}
