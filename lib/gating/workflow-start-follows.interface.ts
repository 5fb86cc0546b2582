import type { FsmTransaction } from '../stores/transactional-fsm-state-store.interface.js';
import type { WorkflowCaller } from './workflow-call.js';

/**
 * Records, in the transaction that starts a handle-keyed instance, that the calling session
 * follows it: the session's record then follows the instance if and only if it was started,
 * with one commit. The session layer provides it; without it (or when it answers `false`) the
 * session records its following after the commit, as it does for instances it only uses.
 */
export interface WorkflowStartFollows {
  /** Whether `caller`'s following of `storeKey` was written in `transaction`; an error rolls the start back. */
  within(caller: WorkflowCaller, storeKey: string, transaction: FsmTransaction): Promise<boolean>;
}

/** Injection token of the {@link WorkflowStartFollows} the gate's commits write through. */
export const WORKFLOW_START_FOLLOWS = Symbol.for('nestjs-mcp-fsm:WorkflowStartFollows');
