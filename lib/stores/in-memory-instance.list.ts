import type { WorkflowSnapshot } from './fsm-state-store.interface.js';
import {
  isAfterCursor,
  isListedFor,
  isShownTo,
  matchesSearch,
  pageInMemory,
  type WorkflowInstanceCount,
  type WorkflowInstancePage,
  type WorkflowInstanceQuery,
  type WorkflowInstanceSummary,
  type WorkflowStateCount,
  type WorkflowWaitingInstance,
  type WorkflowWaitingPage,
  type WorkflowWaitingQuery,
} from './workflow-state-reader.interface.js';

/** A list's filter: a query without its page. */
type InstanceFilter = Pick<WorkflowInstanceQuery, 'machine' | 'states' | 'search' | 'viewer'>;

/** The instances of `all` a list's filter keeps, unsorted. */
function matching(all: Iterable<WorkflowInstanceSummary>, { machine, states, search, viewer }: InstanceFilter): WorkflowInstanceSummary[] {
  const allowed = states && new Set(states);
  const kept: WorkflowInstanceSummary[] = [];
  for (const summary of all) {
    if (machine !== undefined && summary.machine !== machine) continue;
    if (allowed && !allowed.has(summary.state)) continue;
    if (matchesSearch(summary.key, summary.owner, search) && isShownTo(summary, viewer)) kept.push(summary);
  }
  return kept;
}

/** Last change descending, then key descending (code-unit order, as `isAfterCursor` compares). */
function newestFirst(a: WorkflowInstanceSummary, b: WorkflowInstanceSummary): number {
  return Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);
}

/** One page of `all` for `query`, as `FsmStateReader.listInstances` answers it (for stores that keep their instances in memory). */
export function instancePage(
  all: Iterable<WorkflowInstanceSummary>,
  { limit, after, ...filter }: WorkflowInstanceQuery,
): WorkflowInstancePage {
  const found = matching(all, filter).filter((summary) => isAfterCursor(summary, after));
  found.sort(newestFirst);
  const instances = found.slice(0, limit);
  const last = instances.at(-1);
  return found.length > limit && last ? { instances, next: { updatedAt: last.updatedAt, key: last.key } } : { instances };
}

/** How many of `all` match `query`, up to its `max`. */
export function instanceCount(all: Iterable<WorkflowInstanceSummary>, { max, ...filter }: WorkflowInstanceCount): number {
  return Math.min(max, matching(all, filter).length);
}

/** How many of `all` match `query` in each machine and state, over at most `max` of them (newest first). */
export function stateCounts(all: Iterable<WorkflowInstanceSummary>, { max, ...filter }: WorkflowInstanceCount): WorkflowStateCount[] {
  const counts = new Map<string, WorkflowStateCount>();
  for (const { machine, state } of matching(all, filter).sort(newestFirst).slice(0, max)) {
    const key = `${machine}\u0000${state}`;
    const count = counts.get(key) ?? { machine, state, count: 0 };
    count.count += 1;
    counts.set(key, count);
  }
  return [...counts.values()];
}

/**
 * One page of the instances of `all` with a waiting request, as `FsmStateReader.listWaiting`
 * answers it; `read` gives an instance's snapshot (its copy), read only for the candidates.
 */
export function waitingPage(
  all: Iterable<WorkflowInstanceSummary>,
  { machine, states, limit, after, openTo }: WorkflowWaitingQuery,
  read: (key: string) => WorkflowSnapshot,
): WorkflowWaitingPage {
  const allowed = new Set(states);
  const matching: WorkflowWaitingInstance[] = [];
  for (const { machine: instanceMachine, ...summary } of all) {
    if (instanceMachine !== machine || !allowed.has(summary.state) || !isListedFor(summary, { openTo })) continue;
    const { waiting, context } = read(summary.key);
    if (waiting) matching.push({ ...summary, ...(context && { context }), waiting });
  }
  return pageInMemory(matching, limit, after);
}
