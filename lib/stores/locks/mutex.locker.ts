import type { WorkflowClaimRequest } from '../atomic-fsm-state-store.interface.js';
import type { FsmStateStore } from '../fsm-state-store.interface.js';
import type { FsmLocker, FsmLockOutcome } from './fsm-instance-lock.interface.js';
import { judgeSnapshot } from './snapshot-verdict.js';

/**
 * Locks for a plain `load`/`save` store: an in-process mutex per key, so calls on one
 * instance run one after the other in this process. It cannot exclude other processes.
 */
export class MutexLocker implements FsmLocker {
  private readonly tails = new Map<string, Promise<void>>();

  constructor(private readonly store: FsmStateStore) {}

  async acquire(request: WorkflowClaimRequest): Promise<FsmLockOutcome> {
    const unlock = await this.lock(request.key);
    try {
      const verdict = judgeSnapshot(request, await this.store.load(request.key));
      if (verdict.status !== 'allowed') {
        unlock();
        return verdict;
      }
      let held = true;
      const letGo = () => {
        if (held) {
          held = false;
          unlock();
        }
      };
      return {
        status: 'claimed',
        lock: {
          snapshot: verdict.snapshot,
          commit: async (commit) => {
            try {
              await this.store.save(request.key, commit.snapshot);
              return true;
            } finally {
              letGo();
            }
          },
          release: async () => letGo(),
        },
      };
    } catch (error) {
      unlock();
      throw error;
    }
  }

  private async lock(key: string): Promise<() => void> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let unlock!: () => void;
    const current = new Promise<void>((resolve) => (unlock = resolve));
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    return () => {
      unlock();
      if (this.tails.get(key) === tail) {
        this.tails.delete(key);
      }
    };
  }
}
