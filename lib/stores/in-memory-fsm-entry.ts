import { parseInstanceKey } from './fsm-instance-key.js';
import type { WorkflowSnapshot } from './fsm-state-store.interface.js';
import type { WorkflowInstanceSummary } from './workflow-state-reader.interface.js';
import type { WorkflowWaitingRequest } from './workflow-waiting-request.interface.js';

/** One instance of {@link InMemoryFsmStateStore}: its snapshot's fields, when it was last touched, and its lease. @internal */
export interface InMemoryFsmEntry {
  state: string;
  context?: Record<string, unknown>;
  owner?: string;
  waiting?: WorkflowWaitingRequest;
  team?: string;
  updatedAt: number;
  touchedAt: number;
  leaseToken?: string;
  leaseUntil?: number;
}

/** Whether a live lease holds the entry at `now`. @internal */
export function isLeased(entry: InMemoryFsmEntry, now: number): boolean {
  return entry.leaseUntil !== undefined && entry.leaseUntil >= now;
}

/** The entry as a snapshot (copies: the caller never shares the store's values). @internal */
export function toSnapshot(entry: InMemoryFsmEntry): WorkflowSnapshot {
  const snapshot: WorkflowSnapshot = { state: entry.state, updatedAt: new Date(entry.updatedAt).toISOString() };
  if (entry.context !== undefined) snapshot.context = copy(entry.context);
  if (entry.owner !== undefined) snapshot.owner = entry.owner;
  if (entry.waiting !== undefined) snapshot.waiting = copy(entry.waiting);
  if (entry.team !== undefined) snapshot.team = entry.team;
  return snapshot;
}

/** The entry of `key` as a row of the console's list. @internal */
export function toSummary(key: string, entry: InMemoryFsmEntry): WorkflowInstanceSummary {
  const summary: WorkflowInstanceSummary = {
    key,
    machine: parseInstanceKey(key).machine,
    state: entry.state,
    updatedAt: new Date(entry.updatedAt).toISOString(),
  };
  if (entry.owner !== undefined) summary.owner = entry.owner;
  if (entry.team !== undefined) summary.team = entry.team;
  return summary;
}

/** A deep copy of a stored value (a context, a waiting request, a history row), so neither the caller nor the store sees the other's later changes, as with a database. @internal */
export function copy<T>(value: T): T {
  return value === undefined ? value : structuredClone(value);
}
