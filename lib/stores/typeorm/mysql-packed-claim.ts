import type { WorkflowSnapshot } from '../fsm-state-store.interface.js';
import { exactlyEquals, type SqlStatement } from './typeorm-sql.js';

/** Bits of the MySQL claim's packed insert id: `updated_at` low, then the context (or waiting request) and owner flags, then the position. */
const UPDATED_AT_LIMIT = 2 ** 42;
const CONTEXT_FLAG = 2 ** 42;
const OWNER_FLAG = 2 ** 43;
const POSITION_UNIT = 2 ** 44;
/** Positions 1..511 keep the packed value below 2^53, where mysql2 returns it as an exact number. */
const MAX_PACKED_POSITION = 2 ** 9 - 1;

/**
 * The expression the MySQL claim passes through `LAST_INSERT_ID`: 0 (nothing packed) unless the
 * allowed states are given, at most {@link MAX_PACKED_POSITION}, `updated_at` fits in 42 bits, the
 * row has no team and no owner but `caller`, compared exactly (what the packed value cannot say is read afterwards).
 */
export function packedClaim(allowedStates: readonly string[] | undefined, caller: string | undefined): SqlStatement {
  if (!allowedStates?.length || allowedStates.length > MAX_PACKED_POSITION) return { sql: '0', params: [] };
  const owner = caller === undefined ? undefined : exactlyEquals('mysql', 'owner', caller);
  const packable = owner ? `(owner IS NULL OR ${owner.sql})` : 'owner IS NULL';
  const position = `CASE state ${allowedStates.map((_, index) => `WHEN ? THEN ${index + 1}`).join(' ')} ELSE 0 END`;
  return {
    sql:
      `CASE WHEN updated_at >= 0 AND updated_at < ${UPDATED_AT_LIMIT} AND team IS NULL AND ${packable} THEN ` +
      `(${position}) * ${POSITION_UNIT} + (CASE WHEN owner IS NULL THEN 0 ELSE ${OWNER_FLAG} END) + ` +
      `(CASE WHEN context IS NULL AND waiting IS NULL THEN 0 ELSE ${CONTEXT_FLAG} END) + updated_at ELSE 0 END`,
    params: [...(owner?.params ?? []), ...allowedStates],
  };
}

/** The snapshot packed by {@link packedClaim}; `undefined` when it was not packed or the row has a context or a waiting request. */
export function unpackClaim(
  insertId: number | undefined,
  allowedStates: readonly string[],
  owner: string | undefined,
): WorkflowSnapshot | undefined {
  if (!insertId || insertId >= 2 ** 53) return undefined;
  const position = Math.floor(insertId / POSITION_UNIT);
  const owned = Math.floor(insertId / OWNER_FLAG) % 2 === 1;
  const hasContext = Math.floor(insertId / CONTEXT_FLAG) % 2 === 1;
  if (position < 1 || position > allowedStates.length || hasContext) return undefined;
  // An owned row is packed only when its owner is the caller (see `packedClaim`).
  const snapshot: WorkflowSnapshot = {
    state: allowedStates[position - 1],
    updatedAt: new Date(insertId % UPDATED_AT_LIMIT).toISOString(),
  };
  if (owned) snapshot.owner = owner;
  return snapshot;
}
