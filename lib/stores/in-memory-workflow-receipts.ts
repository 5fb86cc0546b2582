import { storeReceiptKept } from './stores.messages.js';
import type { WorkflowCallReceipt } from './workflow-call-receipt.interface.js';

/**
 * The receipts of keyed calls of {@link InMemoryFsmStateStore}, by requester and key. A commit
 * checks first and keeps after (the store does both in the synchronous turn that stores the
 * state), so a commit whose receipt is kept already changes nothing. Receipts outlive their
 * instance until they expire. @internal
 */
export class InMemoryWorkflowReceipts {
  private readonly byKey = new Map<string, WorkflowCallReceipt>();

  /** Throws when a live receipt of the same requester and key is kept (the commit must then store nothing). */
  check(receipt: WorkflowCallReceipt | undefined, now: number): void {
    if (receipt && this.find(receipt.requester, receipt.idempotencyKey, now)) {
      throw new Error(storeReceiptKept(receipt.idempotencyKey));
    }
  }

  /** Keeps a checked receipt (a copy). */
  keep(receipt: WorkflowCallReceipt | undefined): void {
    if (receipt) this.byKey.set(keyOf(receipt.requester, receipt.idempotencyKey), structuredClone(receipt));
  }

  /** The receipt, unless none is kept or it expired before `now` (a copy). */
  find(requester: string, idempotencyKey: string, now: number): WorkflowCallReceipt | undefined {
    const receipt = this.byKey.get(keyOf(requester, idempotencyKey));
    return receipt && receipt.expiresAt > now ? structuredClone(receipt) : undefined;
  }

  /** Deletes at most `limit` expired receipts; how many. */
  sweep(now: number, limit: number): number {
    let swept = 0;
    for (const [key, receipt] of this.byKey) {
      if (swept >= limit) break;
      if (receipt.expiresAt <= now) {
        this.byKey.delete(key);
        swept++;
      }
    }
    return swept;
  }
}

/** One map key for a requester and its idempotency key, whatever characters they hold. */
const keyOf = (requester: string, idempotencyKey: string): string => JSON.stringify([requester, idempotencyKey]);
