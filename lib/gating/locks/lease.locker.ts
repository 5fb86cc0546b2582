import type { AtomicFsmStateStore, FsmClaimRequest } from '../../stores/atomic-fsm-state-store.interface.js';
import type { FsmLocker, FsmLockOutcome } from './fsm-instance-lock.interface.js';

/**
 * Locks through the store's atomic claim: one conditional write, valid across processes.
 * While the handler runs, the lease is renewed every third of its duration (stores with
 * `renew`), so a slow handler keeps its claim and a crashed process's claim expires.
 */
export class LeaseLocker implements FsmLocker {
  constructor(private readonly store: AtomicFsmStateStore) {}

  async acquire(request: FsmClaimRequest): Promise<FsmLockOutcome> {
    const result = await this.store.claim(request);
    if (result.status !== 'claimed') {
      return result;
    }
    const { store } = this;
    const { handle, token, leaseMs } = request;
    const heartbeat = store.renew
      ? setInterval(() => void store.renew!(handle, token, leaseMs).catch(() => false), leaseMs / 3).unref()
      : undefined;
    return {
      status: 'claimed',
      lock: {
        snapshot: result.snapshot,
        commit: (commit) => {
          clearInterval(heartbeat);
          return store.commit(handle, token, commit);
        },
        release: () => {
          clearInterval(heartbeat);
          return store.release(handle, token);
        },
      },
    };
  }
}
