import type { WorkflowApprovalNote } from './workflow-waiting-request.interface.js';

/** One row of transition history: which call moved which instance from where to where. */
export interface WorkflowTransitionRecord {
  /** Machine id. */
  machine: string;
  /** Store key of the instance. */
  key: string;
  /** State before the call; `null` when the call started the instance. */
  from: string | null;
  /** State after the call. */
  to: string;
  /** Event that was sent; `null` when a start tool only created the instance. */
  event: string | null;
  /** Tool whose successful call fired the transition. */
  tool: string;
  /** Session id or auth client id of the caller, when known. */
  principal: string | null;
  /** ISO-8601 time of the transition. */
  at: string;
  /** How the waiting request this row decided was decided (`principal` decided it); absent on other rows. */
  approval?: WorkflowApprovalNote;
}
