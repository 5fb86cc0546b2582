import type { AtomicFsmStateStore, WorkflowClaimRequest } from '../atomic-fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from '../workflow-transition-record.interface.js';
import type { FsmLocker, FsmLockOutcome } from './fsm-instance-lock.interface.js';

/** A claim this locker holds, as its renewals need it. */
interface HeldClaim {
  key: string;
  token: string;
  leaseMs: number;
  /** When the lease was taken or last renewed (epoch milliseconds). */
  renewedAt: number;
}

/** When a held claim is next renewed: once it is a third of its lease old. */
function renewalDue(claim: HeldClaim): number {
  return claim.renewedAt + claim.leaseMs / 3;
}

/**
 * Locks through the store's atomic claim: one conditional write, valid across processes.
 * While a handler runs longer than a third of its lease, the lease is renewed every third
 * of its duration (stores with `renew`), so a slow handler keeps its claim and a crashed
 * process's claim expires. One unref'd timer per locker serves every held claim: armed by a
 * claim when none is armed, it renews the claims that came due and stops at its first turn
 * with no claim held. So a stream of fast calls arms it about once per third of a lease, not
 * once per claim, and a claim let go before it is due is never renewed.
 */
export class LeaseLocker implements FsmLocker {
  private readonly held = new Set<HeldClaim>();
  private timer?: NodeJS.Timeout;
  /** When the armed timer fires (epoch milliseconds). */
  private timerDueAt = Infinity;

  constructor(private readonly store: AtomicFsmStateStore) {}

  async acquire(request: WorkflowClaimRequest): Promise<FsmLockOutcome> {
    const result = await this.store.claim(request);
    if (result.status !== 'claimed') {
      return result;
    }
    const { store } = this;
    const { key, token } = request;
    const claim = this.hold(request);
    return {
      status: 'claimed',
      lock: {
        snapshot: result.snapshot,
        created: result.created,
        commit: (commit) => {
          this.letGo(claim);
          return store.commit(key, token, commit);
        },
        release: () => {
          this.letGo(claim);
          return store.release(key, token);
        },
        ...(store.end || store.delete ? { end: (record) => this.end(claim, key, token, record) } : {}),
      },
    };
  }

  /** Ends the instance under the claim: with its history row when the store can, else deleted under the claim alone. */
  private async end(claim: HeldClaim | undefined, key: string, token: string, record: WorkflowTransitionRecord): Promise<boolean> {
    this.letGo(claim);
    if (this.store.end) return this.store.end(key, token, record);
    await this.store.delete!([key]);
    return true;
  }

  /** Starts renewing a claim when it comes due; `undefined` when the store cannot renew. */
  private hold({ key, token, leaseMs }: WorkflowClaimRequest): HeldClaim | undefined {
    if (!this.store.renew) {
      return undefined;
    }
    const claim: HeldClaim = { key, token, leaseMs, renewedAt: Date.now() };
    this.held.add(claim);
    this.schedule(renewalDue(claim));
    return claim;
  }

  /** Stops renewing a claim (the timer stops at its next turn if no claim is held then). */
  private letGo(claim: HeldClaim | undefined): void {
    if (claim) {
      this.held.delete(claim);
    }
  }

  /** Arms the timer for `dueAt`, unless it is already armed to fire by then. */
  private schedule(dueAt: number): void {
    if (dueAt >= this.timerDueAt) {
      return;
    }
    clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => this.renewDue(), Math.max(0, dueAt - Date.now())).unref();
  }

  /** Renews every claim that has come due, then arms the timer for the next one. */
  private renewDue(): void {
    this.timer = undefined;
    this.timerDueAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const claim of this.held) {
      if (renewalDue(claim) <= now) {
        claim.renewedAt = now;
        void this.renew(claim);
      }
      next = Math.min(next, renewalDue(claim));
    }
    if (next !== Infinity) {
      this.schedule(next);
    }
  }

  private async renew(claim: HeldClaim): Promise<void> {
    // A failed renewal (database unreachable) is tried again when the claim is next due.
    const renewed = await this.store.renew!(claim.key, claim.token, claim.leaseMs).catch(() => true);
    if (!renewed) {
      // The lease was lost: nothing left to keep alive; the commit will report it.
      this.letGo(claim);
    }
  }
}
