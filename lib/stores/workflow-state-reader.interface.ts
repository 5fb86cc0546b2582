import { parseInstanceKey } from './fsm-instance-key.js';
import type { FsmStateStore } from './fsm-state-store.interface.js';
import type { WorkflowTransitionRecord } from './workflow-transition-record.interface.js';

/** Where a page of instances starts: after this instance in the order newest first. */
export interface WorkflowInstanceCursor {
  /** ISO-8601 time of the last change of the last instance of the previous page. */
  updatedAt: string;
  /** Its store key (the tie-breaker among instances changed in the same millisecond). */
  key: string;
}

/** Which instances {@link WorkflowStateReader.listInstances} answers. */
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
   * Only the instances whose access opens them to this caller (see {@link isListedFor}): the
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

/** Which instances {@link WorkflowStateReader.countInstances} counts: a query's filter, without its page. */
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
export interface WorkflowStateReader {
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
}

/** How many instances of one machine are in one stored state value. */
export interface WorkflowStateCount {
  machine: string;
  state: string;
  count: number;
}

/**
 * Whether an instance is listed for `viewer` (see {@link WorkflowInstanceViewer}); every
 * instance without one. Stores that filter in memory use it; SQL stores say the same in a WHERE clause.
 */
export function isListedFor(
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

/** Whether `store` implements the read methods of {@link WorkflowStateReader}. */
export function isWorkflowStateReader(store: FsmStateStore): store is FsmStateStore & WorkflowStateReader {
  const candidate = store as Partial<WorkflowStateReader>;
  return typeof candidate.listInstances === 'function' && typeof candidate.recentHistory === 'function';
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
