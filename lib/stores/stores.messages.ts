import { echo } from '../client-input/client-input.echo.js';

/** Messages of the stores and the transition relay, worded once (operators and developers read them). */

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Store error: `create` was called for a handle that already exists. */
export const storeHandleExists = (handle: string): string => `Workflow instance "${echo(handle)}" already exists.`;

/** Store error: the in-memory store holds `maxEntries` live instances and refuses a new one. */
export const storeFull = (maxEntries: number): string =>
  `InMemoryFsmStateStore is full: ${maxEntries} live workflow instances (maxEntries); live state is never evicted. Raise maxEntries, lower idleTtlMs, or use a database store (TypeOrmFsmStateStore).`;

/** Commit error: the timer whose firing a commit stores is no longer held by its claim (another process fired it, or its claim lapsed). */
export const storeTimerNotHeld = (handle: string, timer: string): string =>
  `Timer "${echo(timer)}" of workflow instance "${echo(handle)}" is no longer held by this firing (another process fired it, or its claim lapsed); nothing was stored.`;

/** Bootstrap error: the timer table is missing or lacks a column. */
export const storeTimersNotReady = (table: string, error: unknown): string =>
  `TypeOrmFsmStateStore: a machine has "after" transitions, and table ${table} is not ready (${reasonOf(error)}). Run its migration: CreateMcpFsmTimer1766534400000 (createWorkflowTimerMigration for custom table names).`;

/** Commit error: the outside event's receipt is already kept (another send with its idempotency key was applied first). */
export const storeEventApplied = (handle: string, idempotencyKey: string): string =>
  `An outside event with idempotency key "${echo(idempotencyKey)}" was already applied to workflow instance "${echo(handle)}"; nothing was stored.`;

/** Error of the first send with an idempotency key: the receipt table is missing or lacks a column. */
export const storeEventsNotReady = (table: string, error: unknown): string =>
  `TypeOrmFsmStateStore: an outside event was sent with an idempotency key, and table ${table} is not ready (${reasonOf(error)}). Run its migration: CreateMcpFsmEvent1766620800000 (createWorkflowEventMigration for custom table names).`;

/** Commit error: a keyed call's receipt is already kept (a repeat with its requester and idempotency key committed first). */
export const storeReceiptKept = (idempotencyKey: string): string =>
  `A call with idempotency key "${echo(idempotencyKey)}" of the same caller was already applied; nothing was stored.`;

/** Error of the first keyed call: the receipt table is missing or lacks a column. */
export const storeReceiptsNotReady = (table: string, error: unknown): string =>
  `TypeOrmFsmStateStore: a call came with an idempotency key (or ran as a task), and table ${table} is not ready (${reasonOf(error)}). Run its migration: CreateMcpFsmReceipt1766966400000 (createWorkflowReceiptMigration for custom table names).`;

/** Store error: a kept receipt's answer cannot be read back. */
export const storeReceiptUnreadable = (idempotencyKey: string, error: unknown): string =>
  `The receipt of idempotency key "${echo(idempotencyKey)}" cannot be read (${reasonOf(error)}).`;

/** Bootstrap error: the DataSource is of a database type that `component` (a TypeORM store, relay or migration) does not support. */
export const storeUnsupportedDatabase = (component: string, type: string): string =>
  `${component} does not support DataSource type "${type}"; supported: postgres, mysql, mariadb, better-sqlite3.`;

/** Bootstrap error: `component` was given a table name that is not a plain (optionally schema-qualified) SQL identifier. */
export const storeInvalidTableName = (component: string, name: string): string =>
  `${component}: table name "${name}" is not a plain SQL identifier (letters, digits, "_", optionally "schema.table").`;

/** Bootstrap error: a `{ load, save }` store did not give back the snapshot it was given. */
export const storeDropsFields = (store: string, fields: readonly string[]): string =>
  `${store} did not give back what it saved: ${fields.join(', ')} ${fields.length === 1 ? 'was' : 'were'} lost in a round trip at startup. A store keeps the whole snapshot ({ state, context, updatedAt, owner }) and returns it from load; otherwise instances lose their context, and handle-keyed ones their owner (anyone who knows the handle could then call).`;

/** Error (at startup, with the console on): the store has no read methods for the workflow console. */
export const storeCannotRead = (store: string): string =>
  `${store} cannot list workflow instances: the workflow console needs a store with the read methods listInstances(query) and recentHistory(key, limit) (FsmStateReader from nestjs-mcp-fsm/extend; InMemoryFsmStateStore and TypeOrmFsmStateStore have them). Implement them, use one of those stores, or turn the console off.`;

/** Bootstrap error: a TypeORM store, relay or migration was given no DataSource. */
export const storeNeedsDataSource = (component: string, value: unknown): string =>
  `${component} needs a TypeORM DataSource, got ${value === null ? 'null' : typeof value}. Inject it: McpModule.forRootAsync({ inject: [DataSource], useFactory: (dataSource: DataSource) => ({ ... }) }), and pass dataSource to new ${component}(dataSource).`;

/** Store error: a transaction was used after its commit or rollback. */
export const storeTransactionClosed = (): string => 'This workflow transaction is already committed or rolled back.';

/** Store error: a transaction committed a state update for an instance that does not exist. */
export const storeTransactionMissingInstance = (handle: string): string =>
  `Workflow instance "${echo(handle)}" does not exist; commit a new instance with { insert: true }.`;

/** Error of an operation of `component` that (or whose wait for a connection) ran out of time; its connection is not reused. */
export const storeTimedOut = (component: string, operation: string, timeoutMs: number): string =>
  `${component}: ${operation} did not finish within timeoutMs (${timeoutMs} ms); its connection is not reused.`;

/** Store error: a transaction was still open at its deadline; it was rolled back (or its connection closed). */
export const storeTransactionExpired = (timeoutMs: number): string =>
  `TypeOrmFsmStateStore: the transaction was still open after timeoutMs (${timeoutMs} ms) and was rolled back; a transactional call's lock, handler and commit must finish within timeoutMs.`;

/** Error of a query still running on a connection that `component` closed (a deadline, or a transaction that did not end cleanly). */
export const storeConnectionAbandoned = (component: string): string =>
  `${component} closed this connection: its operation ran out of time or its transaction did not end cleanly.`;

/** Bootstrap error: the state table is missing or lacks a column of this version (a migration was not run). */
export const storeSchemaNotReady = (table: string, error: unknown): string =>
  `TypeOrmFsmStateStore: table ${table} is not ready for this version of nestjs-mcp-fsm (${reasonOf(error)}). Run its migrations: CreateMcpFsmState1764460800000, then AddMcpFsmContext1764547200000, AddMcpFsmTeam1766016000000 and AddMcpFsmApprovals1766102400000 (createWorkflowStateMigration / createWorkflowContextMigration / createWorkflowTeamMigration / createWorkflowApprovalMigration for custom table names).`;

/** Bootstrap error: `attempts` is on and the attempt table is missing, or lacks a column this version writes. */
export const storeAttemptsNotReady = (table: string, error: unknown): string =>
  `TypeOrmFsmStateStore: attempts is on, and table ${table} is not ready (${reasonOf(error)}). Run its migrations: CreateMcpFsmAttempt1765843200000 and AddMcpFsmAttemptDetails1766880000000 (createWorkflowAttemptMigration and createWorkflowAttemptDetailsMigration for custom table names), or turn attempts off.`;

/** Bootstrap error: the PostgreSQL relay was given another database. */
export const relayNeedsPostgres = (type: string): string => `PostgresTransitionRelay needs a PostgreSQL DataSource; this one is "${type}".`;

/** Bootstrap error: a LISTEN/NOTIFY channel name that is not a plain identifier. */
export const relayInvalidChannel = (channel: string): string =>
  `PostgresTransitionRelay: channel "${channel}" is not a plain lower-case SQL identifier (a-z, 0-9, "_").`;

/** Log line: a NOTIFY failed (the menu of other instances refreshes on their next list). */
export const relayPublishFailed = (error: unknown): string => `Could not relay a transition to the other instances: ${reasonOf(error)}`;

/** Log line: more transitions could not be relayed since the last line (at most one such line per `warnIntervalMs`). */
export const relayPublishFailedAgain = (count: number, intervalMs: number, error: unknown): string =>
  `Could not relay ${count} more transition${count === 1 ? '' : 's'} to the other instances in the last ${intervalMs} ms (the last: ${reasonOf(error)}).`;

/** Log line: a relayed payload was not one of ours. */
export const relayBadPayload = (error: unknown): string => `Ignored a transition relay message: ${reasonOf(error)}`;

/** Log line: the LISTEN connection was lost. */
export const relayLost = (error: unknown, retryMs: number): string =>
  `Transition relay connection lost (${error === undefined ? 'closed' : reasonOf(error)}); listening again in ${retryMs} ms.`;

/** Health: a relay that was never started, or was stopped. */
export const relayNotListening = (): string => 'not listening (not started, or stopped)';

/** Health: why the LISTEN connection is down, until it listens again. */
export const relayLostReason = (error: unknown): string =>
  `connection lost (${error === undefined ? 'closed' : reasonOf(error)}); listening again`;

/** Error of `runInSqliteTurn`: the DataSource's connection stayed taken for the whole wait. */
export const sqliteTurnTimedOut = (timeoutMs: number): string =>
  `runInSqliteTurn: the SQLite connection was not free within ${timeoutMs} ms (a transactional call holds it until it commits; calling runInSqliteTurn from inside a transactional handler waits for itself: use ctx.manager there).`;

/** Error of a list of waiting requests on a store that cannot list them. */
export const storeCannotListWaiting = (store: string): string =>
  `The store (${store}) cannot list waiting requests: it has no listWaiting() (FsmStateReader). Use TypeOrmFsmStateStore or InMemoryFsmStateStore, or implement it.`;
