import type { DataSource } from 'typeorm';
import { BaseTransitionRelay } from '../base-transition.relay.js';
import type { RelayedTransition, TransitionRelayHealth } from '../transition-relay.interface.js';
import { toRelayedReply } from '../relayed-reply.parse.js';
import type { RelayedReply } from '../session-reply-relay.interface.js';
import { maxReplyBytesOf } from '../session-reply.messages.js';
import { checkNumericOption, count, type NumericOptionRange, timerMs } from '../../checks/numeric-option.check.js';
import { BoundedQueries } from '../../stores/typeorm/bounded-queries.js';
import * as messages from './relays.messages.js';
import { relayBadPayload } from '../../stores/stores.messages.js';
import { quoteTableName, runSql, type SqlResult } from '../../stores/typeorm/typeorm-sql.js';

/** Options of `OutboxTransitionRelay` (and of `createOutboxMigration`, which uses the table name). */
export interface OutboxTransitionRelayOptions {
  /** Outbox table (optionally `schema.table`); processes that share it see each other's transitions. @default 'mcp_fsm_outbox' */
  tableName?: string;
  /** Wait between two polls of the outbox, in milliseconds. @default 200 */
  pollIntervalMs?: number;
  /** Most rows one poll reads, and one prune deletes. @default 500 */
  batchSize?: number;
  /** Age after which outbox rows are deleted, in milliseconds; keep it well above `pollIntervalMs`. @default 60000 */
  retentionMs?: number;
  /**
   * Time limit, in milliseconds, of every query of the relay (a poll, a prune, an insert),
   * waiting for a connection included (on better-sqlite3: for the turn on the DataSource's one
   * connection). A query that runs out of time fails (a poll or an insert is logged) and its
   * connection is closed, not returned to the pool.
   * @default 5000
   */
  timeoutMs?: number;
  /**
   * While the database is away every transition fails to publish: the first failure is logged
   * at once, the next ones once per this interval, with their count.
   * @default 10_000
   */
  warnIntervalMs?: number;
  /**
   * Largest answer to a server-to-client request it carries to the process that asked (the
   * JSON length in bytes); a larger one is refused with HTTP 413.
   * @default 65_536
   */
  maxReplyBytes?: number;
}

/** Default outbox table of `OutboxTransitionRelay`. */
export const DEFAULT_OUTBOX_TABLE = 'mcp_fsm_outbox';

/** How long polls keep looking for an id that a later row skipped (its insert may commit late). */
const LATE_ROW_WAIT_MS = 5000;
/** Most skipped ids polls look for: more than that are not inserts in flight but gaps in the sequence. */
const MAX_LATE_IDS = 100;

interface OutboxRow {
  id: string | number;
  origin: string;
  machine: string;
  store_key: string;
  state: string | null;
  /** The JSON of a {@link RelayedReply}; `null` on a transition's row. */
  reply: string | null;
}

/**
 * Relays transitions between processes through an outbox table in the app's own database,
 * polled by every process. Pruning, delivery and SQLite: see docs/deployment.md#the-outbox-relay.
 * A row with a `reply` (migration `AddMcpFsmOutboxReply1765584000000`) carries a client's
 * answer to a server-to-client request to the process that asked.
 *
 * @example
 * McpModule.forRootAsync({ inject: [DataSource], useFactory: (dataSource: DataSource) => ({
 *   ..., store: new TypeOrmFsmStateStore(dataSource),
 *   transitionRelay: new OutboxTransitionRelay(dataSource) }) })
 */
export class OutboxTransitionRelay extends BaseTransitionRelay {
  /** Largest reply it carries, in bytes of JSON (option `maxReplyBytes`). */
  readonly maxReplyBytes: number;
  private readonly queries: BoundedQueries;
  private readonly table: string;
  private readonly quotedTable: string;
  private readonly pollIntervalMs: number;
  private readonly batchSize: number;
  private readonly retentionMs: number;
  /** Ids a later row skipped, with when that was seen: their inserts may not have committed yet. */
  private readonly lateIds = new Map<number, number>();
  private timer?: NodeJS.Timeout;
  private polling?: Promise<void>;
  /** What the last poll failed with; `undefined` once one worked. */
  private pollError?: unknown;
  private lastSeenId = 0;
  private lastPruneAt = 0;
  private pruneBehind = false;
  private failing = false;

  constructor(dataSource: DataSource, options: OutboxTransitionRelayOptions = {}) {
    super(OutboxTransitionRelay.name, options.warnIntervalMs);
    this.queries = new BoundedQueries(dataSource, OutboxTransitionRelay.name, options.timeoutMs);
    this.table = this.queries.table(options.tableName ?? DEFAULT_OUTBOX_TABLE);
    this.quotedTable = quoteTableName(this.queries.dialect, this.table);
    const check = (name: keyof OutboxTransitionRelayOptions, value: number, range: NumericOptionRange) =>
      checkNumericOption(OutboxTransitionRelay.name, name, value, range);
    this.pollIntervalMs = check('pollIntervalMs', options.pollIntervalMs ?? 200, timerMs());
    this.batchSize = check('batchSize', options.batchSize ?? 500, count(100_000));
    this.retentionMs = check('retentionMs', options.retentionMs ?? 60_000, timerMs());
    this.maxReplyBytes = maxReplyBytesOf(OutboxTransitionRelay.name, options.maxReplyBytes);
  }

  /**
   * Checks the outbox table (a missing migration fails the bootstrap), then polls from its
   * newest row on; `resync` is called each time polling works again after an outage (rows may
   * have been pruned meanwhile).
   */
  async start(listener: (transition: RelayedTransition) => void, resync?: () => void): Promise<void> {
    try {
      await this.query('start', `SELECT id, origin, machine, store_key, state, reply, created_at FROM ${this.quotedTable} WHERE 1 = 0`, []);
      const { records } = await this.query<{ max_id: string | number | null }>(
        'start',
        `SELECT MAX(id) AS max_id FROM ${this.quotedTable}`,
        [],
      );
      this.lastSeenId = Number(records[0]?.max_id ?? 0);
    } catch (error) {
      throw new Error(messages.outboxSchemaNotReady(this.table, error), { cause: error });
    }
    this.attach(listener, resync);
    this.schedule(this.pollIntervalMs);
  }

  /** Inserts one outbox row in the background; a failure is logged, never thrown. */
  publish(transition: RelayedTransition): void {
    const insert = this.query(
      'publish',
      `INSERT INTO ${this.quotedTable} (origin, machine, store_key, state, created_at) VALUES (?, ?, ?, ?, ?)`,
      [this.origin, transition.machine, transition.storeKey, transition.state, Date.now()],
    );
    this.failures.track(insert);
  }

  /** Inserts the reply's row (the processes that poll read it); rejects when the insert fails. */
  async sendReply(reply: RelayedReply): Promise<void> {
    await this.query(
      'reply',
      `INSERT INTO ${this.quotedTable} (origin, machine, store_key, state, reply, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
      [this.origin, '', '', null, JSON.stringify(reply), Date.now()],
    );
  }

  /** Connected while started and its last poll worked. */
  health(): TransitionRelayHealth {
    if (!this.listener) {
      return { connected: false, reason: messages.outboxNotPolling() };
    }
    return this.pollError === undefined
      ? { connected: true }
      : { connected: false, reason: messages.outboxPollFailing(this.table, this.pollError) };
  }

  /** Stops polling, then waits for the poll and the inserts in flight. */
  async stop(): Promise<void> {
    this.detach();
    clearTimeout(this.timer);
    await this.polling;
    await this.failures.settled();
    this.failures.stop();
  }

  /**
   * Reads the next batch of rows (after the last one read, plus ids skipped a moment ago) and
   * hands the other processes' transitions to the listener; returns how many rows it read.
   */
  protected async poll(): Promise<number> {
    const late = [...this.lateIds.keys()];
    const orLate = late.length ? ` OR id IN (${late.map(() => '?').join(', ')})` : '';
    const { records } = await this.query<OutboxRow>(
      'poll',
      `SELECT id, origin, machine, store_key, state, reply FROM ${this.quotedTable} WHERE id > ?${orLate} ORDER BY id LIMIT ?`,
      [this.lastSeenId, ...late, this.batchSize],
    );
    const now = Date.now();
    for (const row of records) {
      const id = Number(row.id);
      if (id > this.lastSeenId) {
        this.noteSkipped(id, now);
        this.lastSeenId = id;
      } else {
        this.lateIds.delete(id);
      }
      if (row.origin !== this.origin) {
        this.hand(row);
      }
    }
    for (const [id, since] of this.lateIds) {
      if (now - since > LATE_ROW_WAIT_MS) this.lateIds.delete(id);
    }
    return records.length;
  }

  /** Hands a row of another process to the listener of its kind: a transition, or a reply. */
  private hand(row: OutboxRow): void {
    if (row.reply === null || row.reply === undefined) {
      this.listener?.({ machine: row.machine, storeKey: row.store_key, state: row.state });
      return;
    }
    try {
      const reply = toRelayedReply(JSON.parse(row.reply));
      if (reply) this.replyListener?.(reply);
    } catch (error) {
      this.logger.warn(relayBadPayload(error));
    }
  }

  /** Deletes up to `batchSize` rows older than `retentionMs` (safe from several processes at once); returns how many. */
  protected async prune(): Promise<number> {
    const table = this.quotedTable;
    const sql = {
      postgres: `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE created_at < ? ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED)`,
      mysql: `DELETE FROM ${table} WHERE created_at < ? ORDER BY created_at LIMIT ?`,
      sqlite: `DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
    }[this.queries.dialect];
    return (await this.query('prune', sql, [Date.now() - this.retentionMs, this.batchSize])).affected;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.polling = this.cycle().finally(() => (this.polling = undefined));
    }, delayMs).unref();
  }

  /** One poll, and a prune when one is due; a failure is logged once per outage and polling goes on. */
  private async cycle(): Promise<void> {
    let read = 0;
    try {
      read = await this.poll();
      if (this.pruneBehind || Date.now() - this.lastPruneAt >= this.retentionMs / 4) {
        this.lastPruneAt = Date.now();
        this.pruneBehind = (await this.prune()) === this.batchSize;
      }
      this.pollError = undefined;
      if (this.failing) {
        this.failing = false;
        this.logger.log(messages.outboxPollRecovered(this.table));
        this.resync?.();
      }
    } catch (error) {
      this.pollError = error;
      if (!this.failing) {
        this.failing = true;
        this.logger.warn(messages.outboxPollFailed(this.table, error, this.pollIntervalMs));
      }
    }
    // A full batch means more rows are waiting: read them at once.
    if (this.listener) this.schedule(read === this.batchSize ? 0 : this.pollIntervalMs);
  }

  /** Remembers the ids between the last row read and `id`, unless the gap is too wide to be inserts in flight. */
  private noteSkipped(id: number, now: number): void {
    if (id - this.lastSeenId - 1 > MAX_LATE_IDS) return;
    for (let skipped = this.lastSeenId + 1; skipped < id && this.lateIds.size < MAX_LATE_IDS; skipped++) {
      this.lateIds.set(skipped, now);
    }
  }

  /**
   * Runs one statement of `operation` within `timeoutMs` (on better-sqlite3: in its turn on the
   * DataSource's one connection, never inside a store transaction).
   */
  private query<T>(operation: string, sql: string, params: unknown[]): Promise<SqlResult<T>> {
    return this.queries.run(operation, (runner) => runSql<T>(runner, this.queries.dialect, { sql, params }));
  }
}
