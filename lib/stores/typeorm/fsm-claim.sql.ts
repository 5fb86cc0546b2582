import type { QueryRunner } from 'typeorm';
import type { WorkflowClaimRequest } from '../atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import { type FsmSnapshotRow, toSnapshot } from './fsm-state.rows.js';
import { type FsmLease, SNAPSHOT_COLUMNS } from './fsm-state.sql.js';
import { packedClaim, unpackClaim } from './mysql-packed-claim.js';
import { exactlyEquals, type FsmSqlDialect, quoteTableName, runSql, type SqlResult, type SqlStatement } from './typeorm-sql.js';

/**
 * The claim's SQL in one dialect: the conditional UPDATE that takes an instance's lease. The
 * handle, the owner and the team are compared exactly (`exactlyEquals`): on MySQL/MariaDB a
 * principal `"solo "` never matches the row of `"solo"`.
 */
export class FsmClaimSql {
  private readonly state: string;

  /** `tableName` as `BoundedQueries.table` returns it. */
  constructor(
    readonly dialect: FsmSqlDialect,
    tableName: string,
  ) {
    this.state = quoteTableName(dialect, tableName);
  }

  /**
   * Takes the lease when the instance is in one of the allowed states (exactly; any state when
   * they are not given), open to the caller (`isOpenTo`, in SQL: no owner, owned by
   * `request.owner`, or of `request.team`; anyone with `anyOwner`) and not leased. Returns the
   * snapshot when it took the lease.
   *
   * PostgreSQL and SQLite: one `UPDATE … RETURNING`. MySQL/MariaDB have no `UPDATE …
   * RETURNING`: the UPDATE passes what the caller does not know yet through
   * `LAST_INSERT_ID(expr)` (the OK packet's insert id), packed into one integer below 2^53
   * (exact in a JS number): the position of the matched allowed state, whether the row has
   * an owner (packed only when it is the caller, which then knows it), whether it has a context,
   * and `updated_at`. So a claim with `allowedStates` of a row without context is one round trip;
   * a row with a context, a team or another owner (a teammate's), a claim without `allowedStates`
   * (the state is unknown), more than 511 allowed states or an `updated_at` before 1970 or after
   * 2109 cost a second one, a SELECT by lease token.
   */
  async claim(runner: QueryRunner, request: WorkflowClaimRequest, lease: FsmLease, now: number): Promise<WorkflowSnapshot | undefined> {
    const handle = exactlyEquals(this.dialect, 'handle', request.key);
    const allowed = allowedStatesPredicate(request.allowedStates);
    const access = accessPredicate(this.dialect, request);
    const where = `WHERE ${handle.sql}${allowed.sql} AND (lease_until IS NULL OR lease_until < ?)${access.sql}`;
    const whereParams = [...handle.params, ...allowed.params, now, ...access.params];
    if (this.dialect !== 'mysql') {
      const { records } = await this.run<FsmSnapshotRow>(runner, {
        sql: `UPDATE ${this.state} SET lease_token = ?, lease_until = ? ${where} RETURNING ${SNAPSHOT_COLUMNS}`,
        params: [lease.token, lease.until, ...whereParams],
      });
      return records[0] && toSnapshot(records[0]);
    }
    const packed = packedClaim(request.allowedStates, request.owner);
    const updated = await this.run(runner, {
      sql: `UPDATE ${this.state} SET lease_token = IF(LAST_INSERT_ID(${packed.sql}) < 0, NULL, ?), lease_until = ? ${where}`,
      params: [...packed.params, lease.token, lease.until, ...whereParams],
    });
    if (updated.affected !== 1) return undefined;
    const unpacked = request.allowedStates && unpackClaim(updated.insertId, request.allowedStates, request.owner);
    if (unpacked) return unpacked;
    const { records } = await this.run<FsmSnapshotRow>(runner, {
      sql: `SELECT ${SNAPSHOT_COLUMNS} FROM ${this.state} WHERE handle = ? AND lease_token = ?`,
      params: [request.key, lease.token],
    });
    return records[0] && toSnapshot(records[0]);
  }

  private run<T>(runner: QueryRunner, statement: SqlStatement): Promise<SqlResult<T>> {
    return runSql<T>(runner, this.dialect, statement);
  }
}

/** ` AND state IN (…)` for the allowed states (matched exactly); nothing when any state is allowed. */
function allowedStatesPredicate(allowedStates: readonly string[] | undefined): SqlStatement {
  if (!allowedStates) return { sql: '', params: [] };
  if (!allowedStates.length) return { sql: ' AND 1 = 0', params: [] };
  return { sql: ` AND state IN (${allowedStates.map(() => '?').join(', ')})`, params: [...allowedStates] };
}

/**
 * ` AND …` for who may claim (`isOpenTo` in SQL, compared exactly): an anonymous caller only rows
 * without owner, an authenticated one also its own, and with a team those of its team; nothing
 * with `anyOwner`.
 */
function accessPredicate(dialect: FsmSqlDialect, request: WorkflowClaimRequest): SqlStatement {
  if (request.anyOwner) return { sql: '', params: [] };
  if (request.owner === undefined) return { sql: ' AND owner IS NULL', params: [] };
  const owner = exactlyEquals(dialect, 'owner', request.owner);
  if (request.team === undefined) return { sql: ` AND (owner IS NULL OR ${owner.sql})`, params: owner.params };
  const team = exactlyEquals(dialect, 'team', request.team);
  return { sql: ` AND (owner IS NULL OR ${owner.sql} OR ${team.sql})`, params: [...owner.params, ...team.params] };
}
