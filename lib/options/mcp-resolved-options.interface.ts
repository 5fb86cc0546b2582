import type { IncomingMessage } from 'node:http';
import type { WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import type { McpMachine } from '../machines/machine.interface.js';
import type { McpResolvedStateCacheOptions } from '../sessions/state-cache-options.interface.js';
import type { TransitionRelay } from '../relays/transition-relay.interface.js';
import type { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import type { McpSessionStore } from '../stores/mcp-session-store.interface.js';
import type { McpAuthOptions } from '../auth/auth-options.interface.js';
import type { McpJwtOptions } from '../auth/jwt-options.interface.js';
import type { McpConsoleOptions } from '../console/console-options.interface.js';
import type { McpHttpTransportOptions } from '../transports/http-transport-options.interface.js';
import type { McpModuleOptions } from './mcp-module-options.interface.js';
import type { McpTokenVerifier } from '../access/token-verifier.interface.js';
import type { McpResolvedTaskOptions } from '../tasks/task-options.interface.js';

/** Who this server is: what `initialize` says, and its id among the app's McpModules. */
export interface McpServerIdentity {
  name: string;
  version: string;
  serverId: string;
  instructions?: string;
  configureServer?: McpModuleOptions['configureServer'];
}

/** `transports.http` with every default filled in. */
export interface McpResolvedHttpOptions
  extends
    Required<
      Pick<McpHttpTransportOptions, 'path' | 'stateless' | 'direct' | 'drainMs' | 'maxBodyBytes' | 'singleTenant' | 'listCacheTtlMs'>
    >,
    Pick<McpHttpTransportOptions, 'allowedHosts' | 'allowedOrigins'> {
  /** `undefined`: both eras when the SDK v2 packages are installed. */
  protocolEras?: ('2025-11-25' | '2026-07-28')[];
  /** Key of the session-keyed instances of stateless HTTP with `singleTenant`. */
  attachmentId: string;
}

/** `transports.stdio` resolved: the key of the one stdio attachment's session-keyed instances. */
export interface McpResolvedStdioOptions {
  attachmentId: string;
}

/** `transports.http.sessions` with every default filled in (also read by stdio's one session). */
export interface McpResolvedSessionOptions {
  store: McpSessionStore;
  idleTtlMs: number;
  unusedTtlMs: number;
  eventRetentionMs: number;
  maxSessions: number;
  maxPerAddress: number;
  maxPerPrincipal: number;
  maxFollowersPerInstance: number;
  maxPendingRequests: number;
  maxNewPerMinutePerClient: number;
  clientAddress: (request: IncomingMessage) => string;
}

/** `telemetry` with every default filled in. */
export interface McpResolvedTelemetryOptions {
  enabled: boolean;
  recordArguments: boolean;
  recordResults: boolean;
  instanceDigestKey: string | Uint8Array;
}

/** `auth.jwt` with every default filled in (`audience` stays unset when it is the resource URL, known once the server listens). */
export type McpResolvedJwtOptions = Required<Omit<McpJwtOptions, 'audience'>> & Pick<McpJwtOptions, 'audience'>;

/**
 * `auth` with every default filled in: how a request's caller is known (`mode`), whether one
 * is required, what the protected-resource metadata says.
 */
export interface McpResolvedAuthOptions {
  /** `'jwt'`: bearer JWTs verified here; `'verifier'`: bearer tokens verified by the app's verifier; `'request'`: the caller the app's middleware found. */
  mode: 'jwt' | 'verifier' | 'request';
  jwt?: McpResolvedJwtOptions;
  verifier?: McpTokenVerifier;
  /** In `'request'` mode: `auth.fromRequest` (without it, `req.auth` as it is). */
  fromRequest?: McpAuthOptions['fromRequest'];
  required: boolean;
  /** `undefined`: the loopback listener's own URL. */
  resource?: string;
  authorizationServers: readonly string[];
  scopesSupported: readonly string[];
  roles: NonNullable<McpAuthOptions['roles']>;
  /** Whether `/.well-known/oauth-protected-resource` is served (bearer tokens verified here, or authorization servers named). */
  metadata: boolean;
}

/** `inputRequests` as the protocol layer reads it: how `requestState` is signed, and the rounds of a 2025-11-25 call. */
export interface McpResolvedInputRequestOptions {
  /** How long a 2025-11-25 session waits for the client's answer to one request. */
  timeoutMs: number;
  /** The HMAC key of `requestState`, at least 32 bytes. */
  requestStateKey: Uint8Array;
  /** Whether the key was made up for this process (no `requestStateKey`): the startup log says replicas need a shared one. */
  requestStateKeyGenerated: boolean;
  /** How long a `requestState` is valid. */
  requestStateTtlMs: number;
  /** Rounds of one 2025-11-25 call whose handler keeps asking for input. */
  maxRounds: number;
}

/** What discovery reads: which handlers it accepts and which it adds. */
export interface McpDiscoveryOptions {
  allowRequestScoped: boolean;
  workflowResources: boolean;
}

/** `console` with every default filled in. */
export type McpResolvedConsoleOptions = Required<Omit<McpConsoleOptions, ConsoleScopeOption>> & Pick<McpConsoleOptions, ConsoleScopeOption>;

/** The console options whose absence means "off". */
type ConsoleScopeOption = 'adminScope' | 'decideScope' | 'endScope' | 'sendScope';

/** The module options with every default filled in, resolved once when the module starts, grouped by what they configure. */
export interface McpResolvedOptions {
  server: McpServerIdentity;
  machines: readonly McpMachine[];
  engine: 'auto' | 'xstate' | 'table';
  store: FsmStateStore;
  transitionRelay?: TransitionRelay;
  /** `null`: HTTP is off. */
  http: McpResolvedHttpOptions | null;
  /** `null`: stdio is off. */
  stdio: McpResolvedStdioOptions | null;
  sessions: McpResolvedSessionOptions;
  stateCache: McpResolvedStateCacheOptions;
  tasks: McpResolvedTaskOptions;
  gate: WorkflowGateOptions;
  inputRequests: McpResolvedInputRequestOptions;
  discovery: McpDiscoveryOptions;
  telemetry: McpResolvedTelemetryOptions;
  auth: McpResolvedAuthOptions;
  /** `null`: the console is off. */
  console: McpResolvedConsoleOptions | null;
}

/** Injection token of the whole {@link McpResolvedOptions} (the module's own providers build the slices from it). */
export const MCP_RESOLVED_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedOptions');
/** Injection token of the {@link McpServerIdentity}. */
export const MCP_SERVER_IDENTITY = Symbol.for('nestjs-mcp-fsm:McpServerIdentity');
/** Injection token of the {@link McpResolvedHttpOptions} (`null` when HTTP is off). */
export const MCP_HTTP_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedHttpOptions');
/** Injection token of the {@link McpResolvedStdioOptions} (`null` when stdio is off). */
export const MCP_STDIO_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedStdioOptions');
/** Injection token of the {@link McpResolvedSessionOptions}. */
export const MCP_SESSION_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedSessionOptions');
/** Injection token of the {@link McpResolvedAuthOptions}. */
export const MCP_AUTH_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedAuthOptions');
/** Injection token of the {@link McpResolvedInputRequestOptions}. */
export const MCP_INPUT_REQUEST_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedInputRequestOptions');
/** Injection token of the {@link McpDiscoveryOptions}. */
export const MCP_DISCOVERY_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpDiscoveryOptions');
/** Injection token of the {@link McpResolvedConsoleOptions} (`null` when the console is off). */
export const MCP_CONSOLE_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedConsoleOptions');
