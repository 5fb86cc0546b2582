import type { AtomicFsmStateStore, FsmClaimRequest } from '../../stores/atomic-fsm-state-store.interface.js';
import type { FsmLocker, FsmLockOutcome } from './fsm-instance-lock.interface.js';

/** Locks through the store's atomic claim: one conditional write, valid across processes. */
export class LeaseLocker implements FsmLocker {
  constructor(private readonly store: AtomicFsmStateStore) {}

  async acquire(request: FsmClaimRequest): Promise<FsmLockOutcome> {
    const result = await this.store.claim(request);
    if (result.status !== 'claimed') {
      return result;
    }
    const { store } = this;
    return {
      status: 'claimed',
      lock: {
        state: result.state,
        commit: (commit) => store.commit(request.handle, request.token, commit),
        release: () => store.release(request.handle, request.token),
      },
    };
  }
}
