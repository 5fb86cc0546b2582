/**
 * What a keyed call answered, kept with its receipt: the result, the state it left its instance
 * in, and how it waits when it waits for a second person's approval.
 */
export interface WorkflowCallAnswer {
  /** The tool result the call answered (a call that waits: the waiting message). */
  readonly result: Record<string, unknown>;
  /** The state the call stored. */
  readonly state: string;
  /** Set when the call parked for a second person's approval: the state it waits in, what its task says meanwhile, and the request's id. */
  readonly waiting?: { readonly state: string; readonly statusMessage: string; readonly requestId: string };
}

/**
 * The receipt of a call made with an idempotency key (`_meta["nestjs-mcp-fsm/idempotency-key"]`,
 * or a task's id): written by the commit that stores the call's step, in the same write (the same
 * transaction on a SQL store), one per requester and key. A repeat finds it and answers its
 * `answer` without running; another tool or other arguments under the key are told apart by
 * `fingerprint`.
 */
export interface WorkflowCallReceipt {
  /** Whose key it is: the caller's principal, else its session (see `taskRequesterOf`), or the app's actor. */
  readonly requester: string;
  /** The key the caller chose (1 to 255 characters). */
  readonly idempotencyKey: string;
  /** The tool called. */
  readonly tool: string;
  /** SHA-256 (hex) of the tool's name and its arguments, as checked: a repeat with anything else differs. */
  readonly fingerprint: string;
  /** Store key of the instance the call changed. */
  readonly instanceKey: string;
  readonly answer: WorkflowCallAnswer;
  /** Epoch ms of the commit. */
  readonly createdAt: number;
  /** Epoch ms after which a repeat no longer finds it (and a sweep deletes it). */
  readonly expiresAt: number;
}

/**
 * A store that keeps the receipts of keyed calls: each written by the commit that applies its
 * call (`WorkflowCommit.receipt`, or the last argument of `create`), in the same write, so a call
 * that committed and its receipt cannot disagree; a commit whose receipt (requester and key) is
 * already kept fails whole and stores nothing.
 */
export interface FsmReceiptLog {
  /** The receipt of `requester`'s `idempotencyKey`, unless none is kept or it expired before `now`. */
  findReceipt(requester: string, idempotencyKey: string, now: number): Promise<WorkflowCallReceipt | undefined>;
  /** Deletes at most `limit` receipts expired at `now`; answers how many. Safe to run from several processes at once. */
  sweepReceipts(now: number, limit: number): Promise<number>;
  /** Throws, naming the migration to run, when the receipt table is missing (checked by the first keyed call). */
  assertReceiptSchema?(): Promise<void>;
}

/** Whether `store` keeps the receipts of keyed calls. */
export function isWorkflowCallReceiptLog(store: object): store is FsmReceiptLog {
  const candidate = store as Partial<FsmReceiptLog>;
  return typeof candidate.findReceipt === 'function' && typeof candidate.sweepReceipts === 'function';
}
