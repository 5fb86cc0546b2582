import { DEFAULT_DEADLINE_OPTIONS, type McpDeadlineOptions, type WorkflowDeadlineOptions } from '../gating/deadline-options.interface.js';
import {
  DEFAULT_IDEMPOTENCY_OPTIONS,
  type McpIdempotencyOptions,
  type WorkflowIdempotencyOptions,
} from '../gating/idempotency-options.interface.js';
import {
  ageMs,
  bytes,
  checkNumericOption,
  count,
  countOrUnlimited,
  type NumericOptionRange,
  timerMs,
} from '../checks/numeric-option.check.js';
import type { Type } from '@nestjs/common';
import { resolveTaskOptions } from '../tasks/task-options.resolver.js';
import { randomBytes } from 'node:crypto';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { InMemoryFsmStateStore } from '../stores/in-memory-fsm-state.store.js';
import { InMemoryMcpSessionStore } from '../stores/in-memory-mcp-session.store.js';
import { clientAddressOf, isLoopbackAddress } from '../transports/client-address.js';
import type { McpConsoleOptions, McpResolvedConsoleOptions } from '../console/console-options.interface.js';
import type { McpGateOptions } from '../gating/mcp-gate-options.interface.js';
import type { McpInputRequestOptions, McpResolvedInputRequestOptions } from '../protocol/input-request-options.interface.js';
import type { McpResolvedSessionOptions, McpSessionOptions } from '../sessions/session-options.interface.js';
import type { McpHttpTransportOptions } from '../transports/http-transport-options.interface.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import type { McpResolvedHttpOptions } from '../server/http-options.interface.js';
import type { McpResolvedTelemetryOptions } from '../telemetry/telemetry-options.interface.js';
import type { McpResolvedOptions } from './mcp-resolved-options.interface.js';
import type { McpResolvedStateCacheOptions } from '../sessions/state-cache-options.interface.js';
import * as messages from './options.messages.js';
import { resolveAuth } from './auth-options.resolver.js';

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
/** Default number of requests to its client one session may have waiting for an answer. */
export const DEFAULT_MAX_PENDING_REQUESTS = 8;
/** Default number of sessions one client address may open per minute. */
export const DEFAULT_MAX_NEW_SESSIONS_PER_MINUTE_PER_CLIENT = 60;
/** Default time a graceful shutdown waits for requests in flight. */
export const DEFAULT_HTTP_DRAIN_MS = 10_000;
/** Default largest request body of the MCP path: the SDK transport's own limit. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Default number of instance states a process keeps for its menus. */
export const DEFAULT_STATE_CACHE_MAX_INSTANCES = 10_000;
/** Default age after which a kept state is read again. */
export const DEFAULT_STATE_CACHE_MAX_AGE_MS = 60_000;
/** Most live sessions a process may be told to hold. */
const MAX_SESSIONS = 10_000_000;
/** Default identity of the one in-process attachment (stdio, single-tenant stateless HTTP). */
export const DEFAULT_ATTACHMENT_ID = 'local';

/** Fewest bytes a `telemetry.instanceDigestKey` may have. */
const MIN_DIGEST_KEY_BYTES = 16;
/** The digest key when none is given: one per process, so every McpModule of it agrees. */
const PROCESS_DIGEST_KEY = randomBytes(32);

const DEFAULT_RETENTION_INTERVAL_MS = 60_000;
const DEFAULT_RETENTION_BATCH = 500;

/** Default wait of a 2025-11-25 session for the client's answer to one request (a person reading a question). */
export const DEFAULT_INPUT_REQUEST_TIMEOUT_MS = 5 * 60_000;
/** Default lifetime of a `requestState`. */
export const DEFAULT_REQUEST_STATE_TTL_MS = 10 * 60_000;
/** Default rounds of one 2025-11-25 call whose handler returns input-required results. */
export const DEFAULT_INPUT_REQUEST_MAX_ROUNDS = 8;
/** The shortest lifetime of a `requestState`: a person needs a moment to answer. */
const MIN_REQUEST_STATE_TTL_MS = 1000;
/** The shortest `requestStateKey` (HMAC-SHA256 wants 256 bits). */
const MIN_REQUEST_STATE_KEY_BYTES = 32;

/** Default `ttlMs` of the cache hints on 2026-07-28 lists. */
const DEFAULT_LIST_CACHE_TTL_MS = 300_000;

/**
 * Fills in every default of `options` (the only place defaults live), grouped by what they
 * configure, and checks every numeric option once (`checkNumericOption`): a value that is not a
 * whole number within its range fails the bootstrap, naming the option and the value.
 */
export function resolveMcpOptions(options: McpModuleOptions): McpResolvedOptions {
  const http = options.transports?.http;
  const gate: McpGateOptions = options.gate ?? {};
  const retention = gate.retention;
  const sessions = (http ? http.sessions : undefined) ?? {};
  const attachmentId = options.attachmentId ?? DEFAULT_ATTACHMENT_ID;
  return {
    server: {
      name: options.name,
      version: options.version,
      serverId: options.serverId ?? options.name,
      instructions: options.instructions,
      configureServer: options.configureServer,
    },
    machines: options.machines ?? [],
    engine: options.engine ?? 'auto',
    store: options.store ?? new InMemoryFsmStateStore(),
    transitionRelay: options.transitionRelay,
    http: http === false ? null : resolveHttp(http ?? {}, attachmentId),
    stdio: options.transports?.stdio ? { attachmentId } : null,
    sessions: resolveSessions(sessions),
    stateCache: resolveStateCache(options, sessions),
    tasks: resolveTaskOptions(options.tasks),
    gate: {
      useClass: gate.useClass ?? (WorkflowGate as Type<WorkflowGate>),
      leaseMs: check('gate.leaseMs', gate.leaseMs ?? DEFAULT_LEASE_MS, timerMs()),
      transactional: gate.transactional ?? false,
      refusal: gate.refusal ?? 'result',
      handleToolsMenu: gate.handleToolsMenu ?? 'used',
      retention: {
        finishedMs: retention?.finishedMs === undefined ? undefined : check('gate.retention.finishedMs', retention.finishedMs, ageMs()),
        idleHandleMs:
          retention?.idleHandleMs === undefined ? undefined : check('gate.retention.idleHandleMs', retention.idleHandleMs, ageMs()),
        intervalMs: check('gate.retention.intervalMs', retention?.intervalMs ?? DEFAULT_RETENTION_INTERVAL_MS, timerMs()),
        batchSize: check('gate.retention.batchSize', retention?.batchSize ?? DEFAULT_RETENTION_BATCH, count(MAX_BATCH)),
      },
      deadlines: resolveDeadlines(gate.deadlines ?? {}),
      idempotency: resolveIdempotency(gate.idempotency ?? {}),
    },
    inputRequests: resolveInputRequests(options.inputRequests ?? {}),
    discovery: {
      allowRequestScoped: options.allowRequestScoped ?? true,
      workflowResources: options.workflowResources ?? false,
    },
    telemetry: resolveTelemetry(options.telemetry ?? {}),
    auth: resolveAuth(options.auth ?? {}),
    console: options.console ? resolveConsole(options.console === true ? {} : options.console) : null,
  };
}

/** Checks `value`, the module option `name`, against `range` (see `checkNumericOption`). */
function check(name: string, value: unknown, range: NumericOptionRange): number {
  return checkNumericOption('McpModule', name, value, range);
}

/** Most rows one store call of a sweep or a poll takes. */
const MAX_BATCH = 100_000;

function resolveDeadlines(options: McpDeadlineOptions): WorkflowDeadlineOptions {
  const resolved = { ...DEFAULT_DEADLINE_OPTIONS, ...definedOnly(options) };
  const ranges: Record<keyof WorkflowDeadlineOptions, NumericOptionRange> = {
    pollMs: timerMs(),
    batchSize: count(MAX_BATCH),
    concurrency: count(1_000),
    maxAttempts: count(1_000),
    retryMs: timerMs(),
  };
  for (const name of Object.keys(ranges) as (keyof WorkflowDeadlineOptions)[])
    check(`gate.deadlines.${name}`, resolved[name], ranges[name]);
  return resolved;
}

function resolveIdempotency(options: McpIdempotencyOptions): WorkflowIdempotencyOptions {
  const resolved = { ...DEFAULT_IDEMPOTENCY_OPTIONS, ...definedOnly(options) };
  return {
    retentionMs: check('gate.idempotency.retentionMs', resolved.retentionMs, ageMs()),
    sweepIntervalMs: check('gate.idempotency.sweepIntervalMs', resolved.sweepIntervalMs, timerMs()),
  };
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function resolveConsole(console: McpConsoleOptions): McpResolvedConsoleOptions {
  return {
    path: console.path ?? '/workflows',
    scopes: [...(console.scopes ?? [])],
    // With scopes, the token decides; without, the machine itself only.
    authorize: console.authorize ?? (console.scopes?.length ? () => true : (request) => isLoopbackAddress(request.socket.remoteAddress)),
    pageSize: check('console.pageSize', console.pageSize ?? 50, count(1_000)),
    historyLimit: check('console.historyLimit', console.historyLimit ?? 100, count(100_000)),
    maxStreams: check('console.maxStreams', console.maxStreams ?? 32, count(100_000)),
    heartbeatMs: check('console.heartbeatMs', console.heartbeatMs ?? 15_000, timerMs()),
    streamMaxMs: check('console.streamMaxMs', console.streamMaxMs ?? 300_000, timerMs()),
    // 0 turns the sign-in off.
    signInMaxAgeMs: check('console.signInMaxAgeMs', console.signInMaxAgeMs ?? 3_600_000, timerMs(0)),
    adminScope: console.adminScope,
    decideScope: console.decideScope,
    endScope: console.endScope,
    sendScope: console.sendScope,
    dueSoonMs: check('console.dueSoonMs', console.dueSoonMs ?? 3_600_000, timerMs()),
  };
}

function resolveHttp(http: McpHttpTransportOptions, attachmentId: string): McpResolvedHttpOptions {
  return {
    path: http.path ?? '/mcp',
    stateless: http.stateless ?? false,
    direct: http.direct ?? false,
    allowedHosts: http.allowedHosts,
    allowedOrigins: http.allowedOrigins,
    drainMs: check('transports.http.drainMs', http.drainMs ?? DEFAULT_HTTP_DRAIN_MS, timerMs(0)),
    maxBodyBytes: check('transports.http.maxBodyBytes', http.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, bytes()),
    singleTenant: http.singleTenant ?? false,
    protocolEras: http.protocolEras,
    listCacheTtlMs: check('transports.http.listCacheTtlMs', http.listCacheTtlMs ?? DEFAULT_LIST_CACHE_TTL_MS, ageMs(0)),
    attachmentId,
  };
}

function resolveInputRequests(input: McpInputRequestOptions): McpResolvedInputRequestOptions {
  const given = input.requestStateKey;
  const key = typeof given === 'string' ? new TextEncoder().encode(given) : given;
  if (key !== undefined && key.byteLength < MIN_REQUEST_STATE_KEY_BYTES) {
    throw new Error(messages.requestStateKeyTooShort(key.byteLength, MIN_REQUEST_STATE_KEY_BYTES));
  }
  const timeoutMs = check('inputRequests.timeoutMs', input.timeoutMs ?? DEFAULT_INPUT_REQUEST_TIMEOUT_MS, timerMs());
  const requestStateTtlMs = check(
    'inputRequests.requestStateTtlMs',
    input.requestStateTtlMs ?? DEFAULT_REQUEST_STATE_TTL_MS,
    ageMs(MIN_REQUEST_STATE_TTL_MS),
  );
  const maxRounds = check('inputRequests.maxRounds', input.maxRounds ?? DEFAULT_INPUT_REQUEST_MAX_ROUNDS, count(1_000));
  return {
    timeoutMs,
    requestStateKey: key ?? new Uint8Array(randomBytes(MIN_REQUEST_STATE_KEY_BYTES)),
    requestStateKeyGenerated: key === undefined,
    requestStateTtlMs,
    maxRounds,
  };
}

function resolveSessions(sessions: McpSessionOptions): McpResolvedSessionOptions {
  const limit = (name: keyof McpSessionOptions, value: number, range: NumericOptionRange) =>
    check(`transports.http.sessions.${name}`, value, range);
  const maxSessions = limit('maxSessions', sessions.maxSessions ?? DEFAULT_MAX_SESSIONS, count(MAX_SESSIONS));
  const share = Math.max(1, Math.ceil(maxSessions * DEFAULT_MAX_SESSIONS_SHARE));
  return {
    store: sessions.store ?? new InMemoryMcpSessionStore(),
    idleTtlMs: limit('idleTtlMs', sessions.idleTtlMs ?? DEFAULT_SESSION_IDLE_TTL_MS, timerMs()),
    // Replay costs every POST response a priming event: on by default only where sessions outlive a process.
    eventRetentionMs: limit(
      'eventRetentionMs',
      sessions.eventRetentionMs ?? (sessions.store ? DEFAULT_SESSION_EVENT_RETENTION_MS : 0),
      timerMs(0),
    ),
    unusedTtlMs: limit('unusedTtlMs', sessions.unusedTtlMs ?? DEFAULT_SESSION_UNUSED_TTL_MS, timerMs()),
    maxSessions,
    maxPerAddress: limit('maxPerAddress', sessions.maxPerAddress ?? share, countOrUnlimited(MAX_SESSIONS)),
    maxPerPrincipal: limit('maxPerPrincipal', sessions.maxPerPrincipal ?? share, countOrUnlimited(MAX_SESSIONS)),
    // 0: no other session of this process is told of an instance's transitions.
    maxFollowersPerInstance: limit(
      'maxFollowersPerInstance',
      sessions.maxFollowersPerInstance ?? DEFAULT_MAX_FOLLOWERS_PER_INSTANCE,
      count(MAX_SESSIONS, 0),
    ),
    maxPendingRequests: limit('maxPendingRequests', sessions.maxPendingRequests ?? DEFAULT_MAX_PENDING_REQUESTS, count(10_000)),
    maxNewPerMinutePerClient: limit(
      'maxNewPerMinutePerClient',
      sessions.maxNewPerMinutePerClient ?? DEFAULT_MAX_NEW_SESSIONS_PER_MINUTE_PER_CLIENT,
      countOrUnlimited(),
    ),
    clientAddress: sessions.clientAddress ?? clientAddressOf,
  };
}

/**
 * `stateCache`: off unless the app says this process sees every change of the store; with a relay
 * and a session store of the app's, lists also check the session's record for handles followed elsewhere.
 */
function resolveStateCache(options: McpModuleOptions, sessions: McpSessionOptions): McpResolvedStateCacheOptions {
  const given = typeof options.stateCache === 'boolean' ? { enabled: options.stateCache } : (options.stateCache ?? {});
  const enabled = given.enabled ?? false;
  const maxInstances = check('stateCache.maxInstances', given.maxInstances ?? DEFAULT_STATE_CACHE_MAX_INSTANCES, count(MAX_SESSIONS));
  const maxAgeMs = check('stateCache.maxAgeMs', given.maxAgeMs ?? DEFAULT_STATE_CACHE_MAX_AGE_MS, ageMs());
  return {
    enabled,
    maxInstances,
    maxAgeMs,
    sharedSessions:
      options.transitionRelay !== undefined && sessions.store !== undefined && !(sessions.store instanceof InMemoryMcpSessionStore),
  };
}

function resolveTelemetry(telemetry: NonNullable<McpModuleOptions['telemetry']>): McpResolvedTelemetryOptions {
  const key = telemetry.instanceDigestKey ?? PROCESS_DIGEST_KEY;
  const length = typeof key === 'string' ? Buffer.byteLength(key) : key.byteLength;
  if (length < MIN_DIGEST_KEY_BYTES) {
    throw new Error(messages.digestKeyTooShort(length, MIN_DIGEST_KEY_BYTES));
  }
  return {
    enabled: telemetry.enabled ?? true,
    recordArguments: telemetry.recordArguments ?? false,
    recordResults: telemetry.recordResults ?? false,
    instanceDigestKey: key,
  };
}
