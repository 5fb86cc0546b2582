import type { McpInputRequired } from '../results/input-required.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowApprovalNote } from '../stores/workflow-waiting-request.interface.js';
import type { WorkflowCall } from './workflow-call.js';
import type { WorkflowRefusal } from './workflow-refusal.js';
import type { McpCallResult, WorkflowCallWaiting, WorkflowInstanceRef, WorkflowStored } from './workflow-step-values.js';

/** What every outcome tells of the call's instance. */
interface WorkflowCallEffects {
  readonly call: WorkflowCall;
  /** The instance the call acts on, once resolved and found to be the caller's. */
  readonly instance?: WorkflowInstanceRef;
  /** The instance as the call was admitted on it. */
  readonly admitted?: WorkflowSnapshot;
  /** What the call stored; `undefined` while it stored nothing. */
  readonly stored?: WorkflowStored;
  /** The state the call leaves its instance in: the stored one (`null`: ended), else the one it was admitted on. */
  readonly state: string | null | undefined;
}

/**
 * How one call ended, as the gate answers it to the protocol layer (and tells its observer):
 * a result, a question for the client (input required), or a failure: the gate's refusal, or
 * what the handler or the app's pipeline threw.
 */
export type WorkflowCallOutcome =
  | (WorkflowCallEffects & {
      readonly status: 'answered';
      readonly result: McpCallResult;
      /** Set when a keyed call answered the receipt of its first run (see `WorkflowReceipts`): nothing ran, nothing was stored. */
      readonly replayed?: boolean;
      /** Set when the call waits for a second person's approval (`@McpApproval`): the state it waits in, and what a task's status says. */
      readonly waiting?: WorkflowCallWaiting;
      /** Set when the call decided a waiting request (`@McpApproval`'s decision tools): how, and which. */
      readonly decided?: WorkflowApprovalNote;
    })
  | (WorkflowCallEffects & { readonly status: 'asking'; readonly question: McpInputRequired })
  | (WorkflowCallEffects & { readonly status: 'failed'; readonly error: unknown; readonly refusal?: WorkflowRefusal });
