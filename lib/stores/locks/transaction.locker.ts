import type { WorkflowClaimRequest } from '../atomic-fsm-state-store.interface.js';
import type { TransactionalFsmStateStore } from '../transactional-fsm-state-store.interface.js';
import type { FsmLocker, FsmLockOutcome } from './fsm-instance-lock.interface.js';

/** Locks the instance row inside a transaction that the handler joins. */
export class TransactionLocker implements FsmLocker {
  constructor(private readonly store: TransactionalFsmStateStore) {}

  async acquire({ token: _token, leaseMs: _leaseMs, ...request }: WorkflowClaimRequest): Promise<FsmLockOutcome> {
    const transaction = await this.store.beginTransaction();
    let result;
    try {
      result = await transaction.lock(request);
    } catch (error) {
      await transaction.rollback();
      throw error;
    }
    if (result.status !== 'claimed') {
      await transaction.rollback();
      return result;
    }
    return {
      status: 'claimed',
      lock: {
        snapshot: result.snapshot,
        created: result.created,
        manager: transaction.manager,
        commit: async (commit) => {
          // The gate has let go of the lock once it commits: a failed commit is rolled back here.
          await transaction.commit(request.key, commit).catch(async (error: unknown) => {
            await transaction.rollback();
            throw error;
          });
          return true;
        },
        release: () => transaction.rollback(),
      },
    };
  }
}
