import type { Type } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { McpMachine } from '../machines/machine.interface.js';
import { WorkflowGate } from '../gating/fsm-gate.js';
import type { WorkflowGateOptions } from '../gating/fsm-gate-options.interface.js';
import type { McpHttpTransportOptions, McpModuleOptions } from './mcp-module-options.interface.js';
import { clientAddressOf } from '../transports/session-rate.limiter.js';
import { InMemoryWorkflowStateStore } from '../stores/in-memory-fsm-state.store.js';
import type { WorkflowStateStore } from '../stores/fsm-state-store.interface.js';
import { InMemoryMcpSessionStore } from '../stores/in-memory-mcp-session.store.js';
import type { McpSessionStore } from '../stores/mcp-session-store.interface.js';
import type { TransitionRelay } from '../relays/fsm-transition-relay.interface.js';

/** Default lease of a claimed instance. */
export const DEFAULT_LEASE_MS = 15_000;
/** Default idle time after which a stateful session is closed. */
export const DEFAULT_SESSION_IDLE_TTL_MS = 30 * 60_000;
/** Default time a GET-stream message is kept for a reconnecting client, with a session store of the app's. */
export const DEFAULT_SESSION_EVENT_RETENTION_MS = 5 * 60_000;
/** Default time an unused stateful session (nothing since `initialize`) lives. */
export const DEFAULT_SESSION_UNUSED_TTL_MS = 30_000;
/** Default limit of live stateful sessions. */
export const DEFAULT_MAX_SESSIONS = 1000;
/** Default share of `maxSessions` one client address, or one principal, may hold. */
export const DEFAULT_MAX_SESSIONS_SHARE = 0.1;
/** Default number of sessions of a process told of one instance's transitions. */
export const DEFAULT_MAX_FOLLOWERS_PER_INSTANCE = 16;
/** Default number of sessions one client address may open per minute. */
export const DEFAULT_MAX_NEW_SESSIONS_PER_MINUTE_PER_CLIENT = 60;
/** Default time a graceful shutdown waits for requests in flight. */
export const DEFAULT_HTTP_DRAIN_MS = 10_000;
/** Default largest request body of the MCP path: the SDK transport's own limit. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Default identity of the one in-process attachment (stdio, single-tenant stateless HTTP). */
export const DEFAULT_ATTACHMENT_ID = 'local';

/** The module options with every default filled in, resolved once when the module starts. */
export interface McpResolvedOptions {
  name: string;
  version: string;
  serverId: string;
  instructions?: string;
  machines: readonly McpMachine[];
  engine: 'auto' | 'xstate' | 'table';
  store: WorkflowStateStore;
  http:
    | (Required<Pick<McpHttpTransportOptions, 'path' | 'stateless' | 'drainMs' | 'maxBodyBytes'>> &
        Omit<McpHttpTransportOptions, 'path' | 'stateless' | 'drainMs' | 'maxBodyBytes'>)
    | undefined;
  stdio: boolean;
  singleTenant: boolean;
  attachmentId: string;
  sessionStore: McpSessionStore;
  sessionIdleTtlMs: number;
  sessionUnusedTtlMs: number;
  sessionEventRetentionMs: number;
  maxSessions: number;
  maxSessionsPerAddress: number;
  maxSessionsPerPrincipal: number;
  maxFollowersPerInstance: number;
  maxNewSessionsPerMinutePerClient: number;
  sessionClientAddress: (request: IncomingMessage) => string;
  gate: Type<WorkflowGate>;
  transitionRelay?: TransitionRelay;
  handleToolsMenu: 'used' | 'all';
  refusal: 'result' | 'jsonrpc';
  leaseMs: number;
  transactional: boolean;
  allowRequestScoped: boolean;
  workflowResources: boolean;
  /** `undefined`: both eras when the SDK v2 packages are installed. */
  protocolEras?: ('2025-11-25' | '2026-07-28')[];
  listCacheTtlMs: number;
  retention: WorkflowGateOptions['retention'];
  configureServer?: McpModuleOptions['configureServer'];
}

const DEFAULT_RETENTION_INTERVAL_MS = 60_000;
const DEFAULT_RETENTION_BATCH = 500;

/** Default `ttlMs` of the cache hints on 2026-07-28 lists. */
const DEFAULT_LIST_CACHE_TTL_MS = 300_000;

/** Injection token of the {@link McpResolvedOptions}. */
export const MCP_RESOLVED_OPTIONS = Symbol('nestjs-mcp-fsm:McpResolvedOptions');

/** Fills in every default of `options` (the only place defaults live). */
export function resolveMcpOptions(options: McpModuleOptions): McpResolvedOptions {
  const http = options.transports?.http;
  const maxSessions = options.sessions?.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const share = Math.max(1, Math.ceil(maxSessions * DEFAULT_MAX_SESSIONS_SHARE));
  return {
    name: options.name,
    version: options.version,
    serverId: options.serverId ?? options.name,
    instructions: options.instructions,
    machines: options.machines ?? [],
    engine: options.engine ?? 'auto',
    store: options.store ?? new InMemoryWorkflowStateStore(),
    http:
      http === false
        ? undefined
        : {
            ...http,
            path: http?.path ?? '/mcp',
            stateless: http?.stateless ?? false,
            drainMs: http?.drainMs ?? DEFAULT_HTTP_DRAIN_MS,
            maxBodyBytes: http?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
          },
    stdio: options.transports?.stdio ?? false,
    singleTenant: options.singleTenant ?? false,
    attachmentId: options.attachmentId ?? DEFAULT_ATTACHMENT_ID,
    sessionStore: options.sessions?.store ?? new InMemoryMcpSessionStore(),
    sessionIdleTtlMs: options.sessions?.idleTtlMs ?? DEFAULT_SESSION_IDLE_TTL_MS,
    // Replay costs every POST response a priming event: on by default only where sessions outlive a process.
    sessionEventRetentionMs: options.sessions?.eventRetentionMs ?? (options.sessions?.store ? DEFAULT_SESSION_EVENT_RETENTION_MS : 0),
    sessionUnusedTtlMs: options.sessions?.unusedTtlMs ?? DEFAULT_SESSION_UNUSED_TTL_MS,
    maxSessions,
    maxSessionsPerAddress: options.sessions?.maxPerAddress ?? share,
    maxSessionsPerPrincipal: options.sessions?.maxPerPrincipal ?? share,
    maxFollowersPerInstance: options.sessions?.maxFollowersPerInstance ?? DEFAULT_MAX_FOLLOWERS_PER_INSTANCE,
    maxNewSessionsPerMinutePerClient: options.sessions?.maxNewPerMinutePerClient ?? DEFAULT_MAX_NEW_SESSIONS_PER_MINUTE_PER_CLIENT,
    sessionClientAddress: options.sessions?.clientAddress ?? clientAddressOf,
    gate: options.gate ?? WorkflowGate,
    transitionRelay: options.transitionRelay,
    handleToolsMenu: options.handleToolsMenu ?? 'used',
    refusal: options.refusal ?? 'result',
    leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS,
    transactional: options.transactional ?? false,
    allowRequestScoped: options.allowRequestScoped ?? true,
    workflowResources: options.workflowResources ?? false,
    protocolEras: options.protocolEras,
    listCacheTtlMs: options.listCacheTtlMs ?? DEFAULT_LIST_CACHE_TTL_MS,
    retention: {
      finishedMs: options.retention?.finishedMs,
      idleHandleMs: options.retention?.idleHandleMs,
      intervalMs: options.retention?.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS,
      batchSize: options.retention?.batchSize ?? DEFAULT_RETENTION_BATCH,
    },
    configureServer: options.configureServer,
  };
}
