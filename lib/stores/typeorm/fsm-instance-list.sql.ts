import type { QueryRunner } from 'typeorm';
import type { WorkflowAccessor } from '../workflow-access.js';
import type {
  WorkflowInstanceCount,
  WorkflowInstanceCursor,
  WorkflowInstancePage,
  WorkflowInstanceQuery,
  WorkflowInstanceViewer,
  WorkflowStateCount,
  WorkflowWaitingPage,
  WorkflowWaitingQuery,
} from '../workflow-state-reader.interface.js';
import { toSnapshot, type FsmSnapshotRow } from './fsm-state.rows.js';
import { columnIn, listParameter } from './sql-lists.js';
import { exactlyEquals, type FsmSqlDialect, quoteTableName, runSql, type SqlStatement } from './typeorm-sql.js';

/** The scopes of a store key whose id follows `<machine>:<scope>:` (a handle's id follows `<machine>:` alone). */
const SCOPES = ['session:', 'attachment:', 'principal:'];

/**
 * The SQL of the lists of instances in one dialect: the console's (page and count) and the
 * waiting requests' (`@McpApproval`); each method is one statement. A search compares the id part
 * of each key exactly (never `LIKE`, so no character of the search is a wildcard), or the owner.
 */
export class FsmInstanceListSql {
  private readonly state: string;

  /** `tableName` as `BoundedQueries.table` returns it. */
  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
  ) {
    this.state = quoteTableName(dialect, tableName);
  }

  /**
   * One page of instances, newest first: one SELECT of the summary columns (never `context`)
   * with `LIMIT limit + 1` (the extra row says whether a next page exists), keyset-paged on
   * `(updated_at, handle)`, so a page costs the same however deep it is.
   */
  async list(runner: QueryRunner, query: WorkflowInstanceQuery): Promise<WorkflowInstancePage> {
    const { limit, after } = query;
    const conditions = this.filter(query);
    if (after) conditions.push(afterCursor(after));
    const { records } = await runSql<FsmSnapshotRow & { handle: string; machine: string }>(runner, this.dialect, {
      sql: `SELECT handle, machine, state, owner, team, updated_at FROM ${this.state} ${where(conditions)} ORDER BY updated_at DESC, handle DESC LIMIT ?`,
      params: [...conditions.flatMap((condition) => condition.params), limit + 1],
    });
    const instances = records.slice(0, limit).map((row) => {
      const summary: WorkflowInstancePage['instances'][number] = {
        key: row.handle,
        machine: row.machine,
        state: row.state,
        updatedAt: new Date(Number(row.updated_at)).toISOString(),
      };
      if (row.owner !== null) summary.owner = row.owner;
      if (row.team !== null) summary.team = row.team;
      return summary;
    });
    const last = instances.at(-1);
    return records.length > limit && last ? { instances, next: { updatedAt: last.updatedAt, key: last.key } } : { instances };
  }

  /**
   * One page of the instances of a machine with a waiting request, newest first: one SELECT of
   * `LIMIT limit + 1` rows in the waiting states (the index on `(machine, state)` bounds it to the
   * machine's waiting rows, which it sorts), open to `openTo` when given (its owner, or its team).
   */
  async listWaiting(runner: QueryRunner, query: WorkflowWaitingQuery): Promise<WorkflowWaitingPage> {
    const { limit, after, openTo } = query;
    const conditions = [...this.filter(query), { sql: 'waiting IS NOT NULL', params: [] }];
    if (openTo) conditions.push(listedFor(this.dialect, openTo));
    if (after) conditions.push(afterCursor(after));
    const { records } = await runSql<FsmSnapshotRow & { handle: string }>(runner, this.dialect, {
      sql: `SELECT handle, state, context, owner, team, waiting, updated_at FROM ${this.state} ${where(conditions)} ORDER BY updated_at DESC, handle DESC LIMIT ?`,
      params: [...conditions.flatMap((condition) => condition.params), limit + 1],
    });
    const instances = records.slice(0, limit).map((row) => {
      const { waiting, ...snapshot } = toSnapshot(row);
      return { key: row.handle, ...snapshot, waiting: waiting! };
    });
    const last = instances.at(-1);
    return records.length > limit && last ? { instances, next: { updatedAt: last.updatedAt, key: last.key } } : { instances };
  }

  /** How many instances match, counted up to `max` (one SELECT over at most `max` rows). */
  async count(runner: QueryRunner, query: WorkflowInstanceCount): Promise<number> {
    const conditions = this.filter(query);
    const { records } = await runSql<{ n: string | number }>(runner, this.dialect, {
      sql: `SELECT COUNT(*) AS n FROM (SELECT 1 AS one FROM ${this.state} ${where(conditions)} LIMIT ?) capped`,
      params: [...conditions.flatMap((condition) => condition.params), query.max],
    });
    return Number(records[0]?.n ?? 0);
  }

  /**
   * How many instances match in each machine and state, over at most `max` of them (one SELECT
   * that groups at most `max` rows, as {@link count} counts them).
   */
  async countStates(runner: QueryRunner, query: WorkflowInstanceCount): Promise<WorkflowStateCount[]> {
    const conditions = this.filter(query);
    const { records } = await runSql<{ machine: string; state: string; n: string | number }>(runner, this.dialect, {
      sql: `SELECT machine, state, COUNT(*) AS n FROM (SELECT machine, state FROM ${this.state} ${where(conditions)} ORDER BY updated_at DESC, handle DESC LIMIT ?) capped GROUP BY machine, state`,
      params: [...conditions.flatMap((condition) => condition.params), query.max],
    });
    return records.map((row) => ({ machine: row.machine, state: row.state, count: Number(row.n) }));
  }

  private filter({
    machine,
    states,
    search,
    viewer,
  }: Pick<WorkflowInstanceQuery, 'machine' | 'states' | 'search' | 'viewer'>): SqlStatement[] {
    const conditions: SqlStatement[] = [];
    if (machine !== undefined) conditions.push({ sql: 'machine = ?', params: [machine] });
    if (states) {
      conditions.push(
        states.length
          ? { sql: columnIn(this.dialect, 'state'), params: [listParameter(this.dialect, states)] }
          : { sql: '1 = 0', params: [] },
      );
    }
    if (search !== undefined) conditions.push(this.search(search));
    if (viewer !== undefined) conditions.push(shownTo(viewer));
    return conditions;
  }

  /** The key's id starts with `search` (whatever its scope, as `parseInstanceKey` reads it), or the owner is `search`. */
  private search(search: string): SqlStatement {
    const length = this.dialect === 'mysql' ? 'CHAR_LENGTH' : 'LENGTH';
    const rest = `SUBSTR(handle, ${length}(machine) + 2)`;
    const startsWith = (prefix: string): SqlStatement => ({ sql: `SUBSTR(${rest}, 1, ?) = ?`, params: [[...prefix].length, prefix] });
    const scoped = SCOPES.map((scope) => startsWith(`${scope}${search}`));
    // A handle's id is the whole rest, unless the rest names a scope.
    const unscoped = [startsWith(search), ...SCOPES.map((scope) => startsWith(scope))];
    const handle = {
      sql: `(${unscoped[0].sql}${unscoped
        .slice(1)
        .map((condition) => ` AND NOT ${condition.sql}`)
        .join('')})`,
      params: unscoped.flatMap((condition) => condition.params),
    };
    const any = [handle, ...scoped];
    return {
      sql: `(${any.map((condition) => condition.sql).join(' OR ')} OR owner = ?)`,
      params: [...any.flatMap((condition) => condition.params), search],
    };
  }
}

/** The instances shown to `viewer`, as `isShownTo` says: its own, its teams' (by machine), and those of the machines it judges itself. */
function shownTo(viewer: WorkflowInstanceViewer): SqlStatement {
  const teams = Object.entries(viewer.teams ?? {});
  const anyOwner = viewer.anyOwner ?? [];
  return {
    sql: `(owner = ?${teams.map(() => ' OR (machine = ? AND team = ?)').join('')}${anyOwner.map(() => ' OR machine = ?').join('')})`,
    params: [viewer.owner, ...teams.flat(), ...anyOwner],
  };
}

/** After `cursor` in the order newest first: the first conjunct alone bounds the index range; the second breaks ties in the cursor's millisecond. */
function afterCursor(cursor: WorkflowInstanceCursor): SqlStatement {
  const at = Date.parse(cursor.updatedAt);
  return { sql: 'updated_at <= ? AND (updated_at < ? OR handle < ?)', params: [at, at, cursor.key] };
}

/**
 * The rows a list shows `openTo` (as `isListedFor` says): its own, and its team's; never one
 * started anonymously. Owner and team compare exactly (`exactlyEquals`).
 */
function listedFor(dialect: FsmSqlDialect, { owner, team }: WorkflowAccessor): SqlStatement {
  if (owner === undefined) return { sql: '1 = 0', params: [] };
  const own = exactlyEquals(dialect, 'owner', owner);
  if (team === undefined) return own;
  const teams = exactlyEquals(dialect, 'team', team);
  return { sql: `(${own.sql} OR (owner IS NOT NULL AND ${teams.sql}))`, params: [...own.params, ...teams.params] };
}

function where(conditions: readonly SqlStatement[]): string {
  return conditions.length ? `WHERE ${conditions.map((condition) => condition.sql).join(' AND ')}` : '';
}
