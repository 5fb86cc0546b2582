import type { MigrationInterface } from 'typeorm';
import { AddMcpFsmOutboxReply1765584000000 } from './relays/typeorm/outbox-reply.migration.js';
import { DEFAULT_OUTBOX_TABLE } from './relays/typeorm/outbox-transition.relay.js';
import { createExactTextMigration } from './stores/typeorm/exact-text.migration.js';
import { CreateMcpFsmOutbox1764720000000 } from './relays/typeorm/fsm-outbox.migration.js';
import { AddMcpFsmApprovals1766102400000, AddMcpFsmWaitingIndex1767139200000 } from './stores/typeorm/fsm-approval.migration.js';
import { AddMcpFsmAttemptDetails1766880000000 } from './stores/typeorm/fsm-attempt-details.migration.js';
import { CreateMcpFsmAttempt1765843200000 } from './stores/typeorm/fsm-attempt.migration.js';
import { CreateMcpFsmEvent1766620800000 } from './stores/typeorm/fsm-event.migration.js';
import {
  AddMcpFsmContext1764547200000,
  AddMcpFsmListIndexes1764892800000,
  CreateMcpFsmState1764460800000,
} from './stores/typeorm/fsm-state.migration.js';
import { AddMcpFsmTeam1766016000000 } from './stores/typeorm/fsm-team.migration.js';
import { CreateMcpFsmTimer1766534400000 } from './stores/typeorm/fsm-timer.migration.js';
import { CreateMcpSessionHandles1764806400000, CreateMcpSessions1764633600000 } from './stores/typeorm/mcp-session.migration.js';
import { CreateMcpTasks1766448000000 } from './stores/typeorm/mcp-task.migration.js';
import {
  DEFAULT_WORKFLOW_ATTEMPT_TABLE,
  DEFAULT_WORKFLOW_EVENT_TABLE,
  DEFAULT_WORKFLOW_STATE_TABLE,
  DEFAULT_WORKFLOW_TIMER_TABLE,
  DEFAULT_WORKFLOW_TRANSITION_TABLE,
} from './stores/typeorm/typeorm-fsm-state-store-options.interface.js';
import {
  DEFAULT_MCP_SESSION_EVENT_TABLE,
  DEFAULT_MCP_SESSION_HANDLE_TABLE,
  DEFAULT_MCP_SESSION_TABLE,
} from './stores/typeorm/typeorm-mcp-session-store-options.interface.js';
import { DEFAULT_MCP_TASK_TABLE } from './stores/typeorm/typeorm-mcp-task-store-options.interface.js';

/** A shipped migration class, as a DataSource's `migrations` takes it. */
export type McpFsmMigration = new () => MigrationInterface;

/**
 * Makes the text of every table of the package with its default name compare exactly on
 * MySQL/MariaDB (the state store's, the session store's, the task store's and the outbox): see
 * `createExactTextMigration`, which takes custom table names.
 */
export class MakeMcpFsmTextExact1766793600000 extends createExactTextMigration({
  tableNames: [
    DEFAULT_WORKFLOW_STATE_TABLE,
    DEFAULT_WORKFLOW_TRANSITION_TABLE,
    DEFAULT_WORKFLOW_ATTEMPT_TABLE,
    DEFAULT_WORKFLOW_TIMER_TABLE,
    DEFAULT_WORKFLOW_EVENT_TABLE,
    DEFAULT_MCP_SESSION_TABLE,
    DEFAULT_MCP_SESSION_EVENT_TABLE,
    DEFAULT_MCP_SESSION_HANDLE_TABLE,
    DEFAULT_MCP_TASK_TABLE,
    DEFAULT_OUTBOX_TABLE,
  ],
}) {}

/**
 * The migrations of `TypeOrmFsmStateStore`'s tables with the default names: the state and
 * history tables (with the context, team and approval columns, the console's list indexes and the
 * waiting requests' index), the refused attempts (with their details), the timers of deadlines and
 * the receipts of outside events; and {@link MakeMcpFsmTextExact1766793600000}, which makes the
 * text of every default-named table of the package compare exactly on MySQL/MariaDB (those of the
 * other lists too: run it after them).
 */
export const mcpFsmStateMigrations: readonly McpFsmMigration[] = Object.freeze([
  CreateMcpFsmState1764460800000,
  AddMcpFsmContext1764547200000,
  AddMcpFsmListIndexes1764892800000,
  CreateMcpFsmAttempt1765843200000,
  AddMcpFsmTeam1766016000000,
  AddMcpFsmApprovals1766102400000,
  CreateMcpFsmTimer1766534400000,
  CreateMcpFsmEvent1766620800000,
  MakeMcpFsmTextExact1766793600000,
  AddMcpFsmAttemptDetails1766880000000,
  AddMcpFsmWaitingIndex1767139200000,
]);

/** The migrations of `TypeOrmMcpSessionStore`'s tables (sessions, their kept events, the instances they follow). */
export const mcpSessionMigrations: readonly McpFsmMigration[] = Object.freeze([
  CreateMcpSessions1764633600000,
  CreateMcpSessionHandles1764806400000,
]);

/** The migration of `TypeOrmMcpTaskStore`'s table (MCP tasks). */
export const mcpTaskMigrations: readonly McpFsmMigration[] = Object.freeze([CreateMcpTasks1766448000000]);

/** The migrations of `OutboxTransitionRelay`'s table (the outbox, with clients' answers). */
export const mcpOutboxMigrations: readonly McpFsmMigration[] = Object.freeze([
  CreateMcpFsmOutbox1764720000000,
  AddMcpFsmOutboxReply1765584000000,
]);

/**
 * Every shipped migration with the default table names, oldest first: what a DataSource that
 * uses the state store, the session store, the task store and the outbox relay runs. Unused
 * tables cost nothing but their space; take the per-feature lists to leave them out.
 *
 * @example
 * new DataSource({ type: 'postgres', url, migrations: [...mcpFsmMigrations, ...yourMigrations], migrationsRun: true });
 */
export const mcpFsmMigrations: readonly McpFsmMigration[] = Object.freeze(
  [...mcpFsmStateMigrations, ...mcpSessionMigrations, ...mcpTaskMigrations, ...mcpOutboxMigrations].sort(
    (a, b) => timestampOf(a) - timestampOf(b),
  ),
);

/** The timestamp TypeORM orders a migration by: the digits its class name ends with. */
function timestampOf(migration: McpFsmMigration): number {
  return Number(/(\d{13})$/.exec(migration.name)?.[1] ?? 0);
}
