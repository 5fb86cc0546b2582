import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { isDeepStrictEqual } from 'node:util';
import { isAtomicFsmStateStore } from './atomic-fsm-state-store.interface.js';
import { FsmStateStore, type WorkflowSnapshot } from './fsm-state-store.interface.js';
import { storeDropsFields } from './stores.messages.js';

/** The key of the round trip: no instance has it, since every instance key starts with a machine id. */
const FSM_STORE_CHECK_KEY = ':nestjs-mcp-fsm:store-check';

/**
 * Proves, when the application starts, that a store with only `load` and `save` gives back
 * the whole snapshot it was given: one that keeps only `state` would silently lose every
 * instance's context and owner. Stores with the atomic protocol prove this with the contract
 * suites of `nestjs-mcp-fsm/testing` instead.
 */
@Injectable()
export class FsmStateStoreCheck implements OnApplicationBootstrap {
  constructor(@Inject(FsmStateStore) private readonly store: FsmStateStore) {}

  /** Saves a snapshot with every field under {@link FSM_STORE_CHECK_KEY}, loads it back, and throws naming what was lost. */
  async onApplicationBootstrap(): Promise<void> {
    if (isAtomicFsmStateStore(this.store)) {
      return;
    }
    const probe: WorkflowSnapshot = {
      state: 'checked',
      context: { check: [1, 'two', { three: true }] },
      updatedAt: new Date().toISOString(),
      owner: 'nestjs-mcp-fsm:store-check',
    };
    await this.store.save(FSM_STORE_CHECK_KEY, probe);
    const loaded = await this.store.load(FSM_STORE_CHECK_KEY);
    const lost = (['state', 'context', 'owner'] as const).filter((field) => !isDeepStrictEqual(loaded?.[field], probe[field]));
    if (lost.length > 0) {
      throw new Error(storeDropsFields(this.store.constructor.name, lost));
    }
  }
}
