import type { FsmClaimRequest } from '../../stores/atomic-fsm-state-store.interface.js';
import { matchesAllowedState } from '../../stores/fsm-state-match.js';
import type { FsmSnapshot } from '../../stores/fsm-state-store.interface.js';

/** What a loaded snapshot means for a claim request, decided in process (plain stores, reads). */
export type SnapshotVerdict =
  | { status: 'unknown' }
  | { status: 'forbidden'; state: string }
  | { status: 'allowed'; snapshot: FsmSnapshot };

/** Judges `snapshot` (or the request's `createWith` when absent) against the request's owner and states. */
export function judgeSnapshot(request: FsmClaimRequest, loaded: FsmSnapshot | undefined): SnapshotVerdict {
  const snapshot = loaded ?? request.createWith;
  if (!snapshot || (request.owner !== undefined && snapshot.owner !== request.owner)) {
    return { status: 'unknown' };
  }
  if (!matchesAllowedState(snapshot.state, request.allowedStates)) {
    return { status: 'forbidden', state: snapshot.state };
  }
  return { status: 'allowed', snapshot };
}
