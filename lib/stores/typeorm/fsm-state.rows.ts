import type { WorkflowClaimResult } from '../atomic-fsm-state-store.interface.js';
import { mayClaim } from '../workflow-access.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import type { WorkflowLockRequest } from '../transactional-fsm-state-store.interface.js';

/** One stored instance row, as the drivers return it (pg and mysql2 return BIGINT as a string). */
export interface FsmStateRow {
  state: string;
  owner: string | null;
  team: string | null;
  lease_until: string | number | null;
}

/** The columns of an instance row that make its snapshot (`context` is JSON text, NULL for none). */
export interface FsmSnapshotRow {
  state: string;
  context: string | null;
  owner: string | null;
  /** The waiting request as JSON text, NULL for none. */
  waiting: string | null;
  team: string | null;
  updated_at: string | number;
}

/** A claim outcome other than `claimed`. */
type Refusal = Exclude<WorkflowClaimResult, { status: 'claimed' }>;

/**
 * Why the caller may not take an instance row: `unknown` (not open to the caller: owned by
 * another principal of no team of the caller's, or owned while the caller is anonymous), `forbidden` (its state is not one of the allowed
 * states, compared exactly), `busy` (a live lease holds it); `undefined` when it is free
 * for the caller.
 */
export function refuseFsmClaim(row: FsmStateRow, request: WorkflowLockRequest, now: number): Refusal | undefined {
  if (!mayClaim(row, request)) return { status: 'unknown' };
  if (request.allowedStates && !request.allowedStates.includes(row.state)) return { status: 'forbidden', state: row.state };
  if (row.lease_until !== null && Number(row.lease_until) >= now) return { status: 'busy', state: row.state };
  return undefined;
}

/** The verdict for a row the caller could not take: a row free for it was taken meanwhile, so `busy`. */
export function notTaken(row: FsmStateRow, request: WorkflowLockRequest, now: number): Refusal {
  return refuseFsmClaim(row, request, now) ?? { status: 'busy', state: row.state };
}

/** The snapshot of a row (a NULL context, owner or waiting request → no such key). */
/** The snapshot of a row (a NULL context, owner or team → no such key). */
export function toSnapshot(row: FsmSnapshotRow): WorkflowSnapshot {
  const snapshot: WorkflowSnapshot = { state: row.state, updatedAt: new Date(Number(row.updated_at)).toISOString() };
  if (row.context !== null) snapshot.context = JSON.parse(row.context);
  if (row.owner !== null) snapshot.owner = row.owner;
  if (row.waiting !== null) snapshot.waiting = JSON.parse(row.waiting);
  if (row.team !== null && row.team !== undefined) snapshot.team = row.team;
  return snapshot;
}

/** A snapshot as a later load returns it (its context through JSON, so no aliasing of the caller's). */
export function storedSnapshot(snapshot: WorkflowSnapshot): WorkflowSnapshot {
  const stored: WorkflowSnapshot = { state: snapshot.state, updatedAt: new Date(Date.parse(snapshot.updatedAt)).toISOString() };
  const context = contextText(snapshot);
  if (context !== null) stored.context = JSON.parse(context);
  if (snapshot.owner !== undefined) stored.owner = snapshot.owner;
  const waiting = waitingText(snapshot);
  if (waiting !== null) stored.waiting = JSON.parse(waiting);
  if (snapshot.team !== undefined) stored.team = snapshot.team;
  return stored;
}

/** The `context` column of a snapshot: JSON text, or NULL when it has none. */
export function contextText(snapshot: WorkflowSnapshot): string | null {
  return snapshot.context === undefined ? null : JSON.stringify(snapshot.context);
}

/** The `waiting` column of a snapshot: its waiting request as JSON text, or NULL when it has none. */
export function waitingText(snapshot: WorkflowSnapshot): string | null {
  return snapshot.waiting === undefined ? null : JSON.stringify(snapshot.waiting);
}
