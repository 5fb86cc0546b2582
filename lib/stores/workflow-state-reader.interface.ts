import { parseInstanceKey } from './fsm-instance-key.js';
import type { FsmStateStore } from './fsm-state-store.interface.js';
import type { WorkflowAccessor } from './workflow-access.js';
import type { WorkflowTransitionRecord } from './workflow-transition-record.interface.js';
import type { WorkflowWaitingRequest } from './workflow-waiting-request.interface.js';

/** Where a page of instances starts: after this instance in the order newest first. */
export interface WorkflowInstanceCursor {
  /** ISO-8601 time of the last change of the last instance of the previous page. */
  updatedAt: string;
  /** Its store key (the tie-breaker among instances changed in the same millisecond). */
  key: string;
}

/** Which instances {@link FsmStateReader.listInstances} answers. */
export interface WorkflowInstanceQuery {
  /** Only instances of this machine. @default every machine */
  machine?: string;
  /** Only instances stored in one of these state values, matched exactly (a caller lists a parent's descendants itself). @default any state */
  states?: readonly string[];
  /** The most instances one page holds (a positive whole number). */
  limit: number;
  /** Start after this instance (the `next` of the previous page). @default the newest */
  after?: WorkflowInstanceCursor;
  /**
   * Only instances whose handle (the id part of the store key: a minted handle, a session id)
   * starts with this text, or whose owner is exactly this text. @default no search
   */
  search?: string;
  /**
   * Only the instances whose access opens them to this caller (see {@link isShownTo}): the
   * console's view of a caller without its all-instances scope. @default every instance
   */
  viewer?: WorkflowInstanceViewer;
}

/**
 * Whose instances a list answers: a caller's principal and teams. An instance is listed for it
 * when its owner is the caller, when its starter's team is the caller's team for its machine, or
 * when its machine is one the caller judges itself (`anyOwner`). An instance without an owner is
 * open to whoever holds its key, and a list would hand the key out: it is not listed.
 */
export interface WorkflowInstanceViewer {
  /** The caller's principal (auth client id). */
  readonly owner: string;
  /** The caller's team, by machine id: the machines with a team rule whose claim the caller's token has. */
  readonly teams?: Readonly<Record<string, string>>;
  /** Machines whose instances are listed whoever owns them (an access function: the caller judges each instance itself). */
  readonly anyOwner?: readonly string[];
}

/** Which instances {@link FsmStateReader.countInstances} counts: a query's filter, without its page. */
export type WorkflowInstanceCount = Pick<WorkflowInstanceQuery, 'machine' | 'states' | 'search' | 'viewer'> & {
  /** Counting stops here: the answer is `max` when at least that many match. */
  max: number;
};

/** One instance as a list shows it: no context, which a list never reads. */
export interface WorkflowInstanceSummary {
  /** Store key (`"<machine>:<handle>"`, `"<machine>:session:<id>"`, ...). */
  key: string;
  machine: string;
  /** The stored state value. */
  state: string;
  /** Principal that started a handle-keyed instance, when there was one. */
  owner?: string;
  /** The team its starter's token named (a machine with a team rule), when there was one. */
  team?: string;
  /** ISO-8601 time of the last change. */
  updatedAt: string;
}

/** One page of instances, newest first (last change descending, then store key descending). */
export interface WorkflowInstancePage {
  instances: WorkflowInstanceSummary[];
  /** Where the next page starts; absent on the last page. */
  next?: WorkflowInstanceCursor;
}

/** Which instances {@link FsmStateReader.listWaiting} answers: those of one machine with a waiting request. */
export interface WorkflowWaitingQuery {
  machine: string;
  /** Only instances stored in one of these state values (the approvals' waiting states), matched exactly. */
  states: readonly string[];
  /**
   * Only instances this accessor's principal owns or (with a team) whose team is its team, as
   * `isOpenTo` says, but never an instance started anonymously (a list is no handle). Absent:
   * every instance (the gate judges each: an access function, approvers of every team).
   */
  openTo?: WorkflowAccessor;
  /** The most instances one page holds (a positive whole number). */
  limit: number;
  /** Start after this instance (the `next` of the previous page). @default the newest */
  after?: WorkflowInstanceCursor;
}

/** One instance with the request waiting on it. */
export interface WorkflowWaitingInstance extends Omit<WorkflowInstanceSummary, 'machine'> {
  /** Its XState context (what an access function reads). */
  context?: Record<string, unknown>;
  waiting: WorkflowWaitingRequest;
}

/** One page of instances with a waiting request, newest first (last change descending, then store key descending). */
export interface WorkflowWaitingPage {
  instances: WorkflowWaitingInstance[];
  /** Where the next page starts; absent on the last page. */
  next?: WorkflowInstanceCursor;
}

/** The most recent history of one instance. */
export interface WorkflowHistoryPage {
  /** At most `limit` rows, the most recent ones, oldest first. */
  entries: WorkflowTransitionRecord[];
  /** Whether older rows exist that `entries` leaves out. */
  truncated: boolean;
}

/**
 * Read methods for operators (the workflow console): a bounded, paged list of instances and
 * the recent history of one. Optional: a store without them still gates every call; the
 * console needs them and says so at startup. Both shipped stores implement them; prove a store
 * of your own with `describeFsmStateStoreContract` from `nestjs-mcp-fsm/testing`.
 */
export interface FsmStateReader {
  /** One page of instances matching `query`, newest first; never more than `query.limit`. */
  listInstances(query: WorkflowInstanceQuery): Promise<WorkflowInstancePage>;
  /** The most recent `limit` history rows of one instance, oldest first (none when history is off). */
  recentHistory(key: string, limit: number): Promise<WorkflowHistoryPage>;
  /** How many instances match `query`, up to `query.max`. Optional: without it the console shows no total. */
  countInstances?(query: WorkflowInstanceCount): Promise<number>;
  /**
   * How many instances match `query` in each machine and state, counted over at most
   * `query.max` matching instances (the counts then add up to `max`). Optional: without it the
   * console shows no counts per state.
   */
  countStates?(query: WorkflowInstanceCount): Promise<WorkflowStateCount[]>;
  /**
   * One page of the instances of `query.machine` with a waiting request (`@McpApproval`), newest
   * first; never more than `query.limit`. Optional: without it nobody finds a waiting request
   * without its handle (`McpApprovals.pending` says so; menus show decision tools by state only).
   */
  listWaiting?(query: WorkflowWaitingQuery): Promise<WorkflowWaitingPage>;
}

/** How many instances of one machine are in one stored state value. */
export interface WorkflowStateCount {
  machine: string;
  state: string;
  count: number;
}

/**
 * Whether an instance is shown to `viewer` (see {@link WorkflowInstanceViewer}); every
 * instance without one. Stores that filter in memory use it; SQL stores say the same in a WHERE clause.
 */
export function isShownTo(
  instance: { machine: string; owner?: string | null; team?: string | null },
  viewer: WorkflowInstanceViewer | undefined,
): boolean {
  if (!viewer || viewer.anyOwner?.includes(instance.machine)) return true;
  if (instance.owner === undefined || instance.owner === null) return false;
  if (instance.owner === viewer.owner) return true;
  const team = viewer.teams && Object.hasOwn(viewer.teams, instance.machine) ? viewer.teams[instance.machine] : undefined;
  return team !== undefined && instance.team === team;
}

/**
 * Whether instance `key` (owned by `owner`) matches a search (see
 * {@link WorkflowInstanceQuery.search}): its handle starts with `search`, or its owner is
 * `search`. Stores that filter in memory use it; SQL stores say the same in a WHERE clause.
 */
export function matchesSearch(key: string, owner: string | undefined, search: string | undefined): boolean {
  if (search === undefined) return true;
  return parseInstanceKey(key).id.startsWith(search) || owner === search;
}

/** Whether `store` implements the read methods of {@link FsmStateReader}. */
export function isWorkflowStateReader(store: FsmStateStore): store is FsmStateStore & FsmStateReader {
  const candidate = store as Partial<FsmStateReader>;
  return typeof candidate.listInstances === 'function' && typeof candidate.recentHistory === 'function';
}

/** Whether an instance with `owner` and `team` is one `query.openTo` lists (see {@link WorkflowWaitingQuery.openTo}). */
export function isListedFor(
  instance: { owner?: string | null; team?: string | null },
  query: Pick<WorkflowWaitingQuery, 'openTo'>,
): boolean {
  const { openTo } = query;
  if (!openTo) return true;
  if (instance.owner === undefined || instance.owner === null || openTo.owner === undefined) return false;
  return instance.owner === openTo.owner || (openTo.team !== undefined && instance.team === openTo.team);
}

/**
 * Whether `summary` comes after `cursor` in the order newest first: what a page that starts
 * after `cursor` holds. Stores that sort in memory use it; SQL stores say the same in a WHERE clause.
 */
export function isAfterCursor(summary: { updatedAt: string; key: string }, cursor: WorkflowInstanceCursor | undefined): boolean {
  if (!cursor) return true;
  const at = Date.parse(summary.updatedAt);
  const cursorAt = Date.parse(cursor.updatedAt);
  return at < cursorAt || (at === cursorAt && summary.key < cursor.key);
}

/**
 * One page of `matching` (in any order) after `cursor`, newest first: what a store that sorts in
 * memory answers for a list (last change descending, then key descending, as {@link isAfterCursor} compares).
 */
export function pageInMemory<T extends { updatedAt: string; key: string }>(
  matching: T[],
  limit: number,
  after: WorkflowInstanceCursor | undefined,
): { instances: T[]; next?: WorkflowInstanceCursor } {
  const sorted = matching.filter((item) => isAfterCursor(item, after)).sort(newestFirst);
  const instances = sorted.slice(0, limit);
  const last = instances.at(-1);
  return sorted.length > limit && last ? { instances, next: { updatedAt: last.updatedAt, key: last.key } } : { instances };
}

function newestFirst(a: { updatedAt: string; key: string }, b: { updatedAt: string; key: string }): number {
  return Date.parse(b.updatedAt) - Date.parse(a.updatedAt) || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0);
}
