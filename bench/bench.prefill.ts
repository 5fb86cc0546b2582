import type { DataSource } from 'typeorm';
import { docMachine } from './bench.machines.js';

/** A month: the pending timers of the crowded targets are never due during a run. */
const MONTH_MS = 30 * 86_400_000;
/** The id of the pending timers (never fired: the doc machine has no `after`, so one that fell due would be dropped). */
const PENDING_TIMER = 'xstate.after.2592000000.doc.draft';

/**
 * `count` unrelated doc instances in the state table of a better-sqlite3 DataSource, in one
 * statement; handles shaped like minted ones (22 characters of the base64url alphabet).
 */
export async function fillSqliteDocs(dataSource: DataSource, count: number): Promise<void> {
  if (count === 0) return;
  const now = Date.now();
  await dataSource.query(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO mcp_fsm_state (handle, machine, state, created_at, updated_at)
     SELECT ? || ':' || substr(lower(hex(randomblob(11))), 1, 22), ?, 'draft', ?, ? FROM n`,
    [count, docMachine.id, docMachine.id, now, now],
  );
}

/**
 * One pending timer for each doc instance in the state table (`schema.` prefixes both tables
 * on PostgreSQL), due over the month after next, so they spread over the `due_at` index.
 */
export async function fillPendingTimers(dataSource: DataSource, schema?: string): Promise<number> {
  const prefix = schema ? `${schema}.` : '';
  const sqlite = dataSource.options.type === 'better-sqlite3';
  const spread = sqlite ? 'abs(random()) % ?' : 'floor(random() * ?)::bigint';
  const parameter = (index: number) => (sqlite ? '?' : `$${index}`);
  await dataSource.query(
    `INSERT INTO ${prefix}mcp_fsm_timer (handle, timer_id, machine, event, due_at, claim_token, attempts)
     SELECT handle, ${parameter(1)}, machine, ${parameter(2)}, ${parameter(3)} + ${spread.replace('?', parameter(4))}, NULL, 0
     FROM ${prefix}mcp_fsm_state WHERE machine = ${parameter(5)}`,
    [PENDING_TIMER, PENDING_TIMER, Date.now() + MONTH_MS, MONTH_MS, docMachine.id],
  );
  const [{ count }] = (await dataSource.query(`SELECT COUNT(*) AS count FROM ${prefix}mcp_fsm_timer`)) as Array<{ count: number | string }>;
  // PostgreSQL's planner gets the statistics autovacuum would gather; SQLite keeps none unless asked (as the store never does).
  if (!sqlite) await dataSource.query(`ANALYZE ${prefix}mcp_fsm_timer`);
  return Number(count);
}
