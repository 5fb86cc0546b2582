import type { WorkflowClaimRequest } from '../atomic-fsm-state-store.interface.js';
import { mayClaim } from '../workflow-access.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';

/** What a loaded snapshot means for a claim request, decided in process (plain stores). */
type SnapshotVerdict = { status: 'unknown' } | { status: 'forbidden'; state: string } | { status: 'allowed'; snapshot: WorkflowSnapshot };

/** Judges `loaded` (or the request's `createWith` when absent) against the caller and the allowed states. */
export function judgeSnapshot(request: WorkflowClaimRequest, loaded: WorkflowSnapshot | undefined): SnapshotVerdict {
  const snapshot = loaded ?? request.createWith;
  if (!snapshot || !mayClaim(snapshot, request)) {
    return { status: 'unknown' };
  }
  if (request.allowedStates && !request.allowedStates.includes(snapshot.state)) {
    return { status: 'forbidden', state: snapshot.state };
  }
  return { status: 'allowed', snapshot };
}
