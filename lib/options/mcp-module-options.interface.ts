import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpAuthOptions } from '../auth/auth-options.interface.js';
import type { McpConsoleOptions } from '../console/console-options.interface.js';
import type { McpGateOptions } from '../gating/mcp-gate-options.interface.js';
import type { McpMachine } from '../machines/machine.interface.js';
import type { McpInputRequestOptions } from '../protocol/input-request-options.interface.js';
import type { TransitionRelay } from '../relays/transition-relay.interface.js';
import type { McpStateCacheOptions } from '../sessions/state-cache-options.interface.js';
import type { McpTaskOptions } from '../tasks/task-options.interface.js';
import type { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import type { McpTelemetryOptions } from '../telemetry/telemetry-options.interface.js';
import type { McpHttpTransportOptions } from '../transports/http-transport-options.interface.js';

/** Options of `McpModule.forRoot` / `forRootAsync`. */
export interface McpModuleOptions {
  /** Server name sent in `initialize`. */
  name: string;
  /** Server version sent in `initialize`. */
  version: string;
  /**
   * Identity of this server among the app's McpModules: what `@McpTool({ server })` and
   * `@McpServedBy(server)` name (with several McpModules, every handler names one). Unique in the app.
   * @default `name`
   */
  serverId?: string;
  /** Instructions sent in `initialize`. */
  instructions?: string;
  /** Machines tools can bind to (`defineMachine(...)`). @default [] */
  machines?: McpMachine[];
  /**
   * Which engine runs the machines: XState when installed (`'auto'`), XState always
   * (`'xstate'`, fails without it), or the built-in table for flat machines (`'table'`).
   * @default 'auto'
   */
  engine?: 'auto' | 'xstate' | 'table';
  /** Where workflow state lives. @default a new `InMemoryFsmStateStore` */
  store?: FsmStateStore;
  /**
   * Who may call: bearer tokens verified here (`jwt`, `verifier`) or by your middleware
   * (`fromRequest`), the protected-resource metadata, and the roles of a caller; see docs/auth.md.
   * @default off: `req.auth` as your middleware sets it, anonymous callers allowed
   */
  auth?: McpAuthOptions;
  /**
   * Transports to serve.
   * @default `{ http: { path: '/mcp' } }`
   */
  transports?: {
    /** Streamable HTTP on Nest's own HTTP server, or `false`. */
    http?: McpHttpTransportOptions | false;
    /** Serve stdio (stdin/stdout) when the application starts. @default false */
    stdio?: boolean;
  };
  /**
   * Identity of the one in-process attachment (stdio, and stateless HTTP with
   * `transports.http.singleTenant`): the key of its session-keyed instances, so they survive a
   * restart on a durable store.
   * @default 'local'
   */
  attachmentId?: string;
  /**
   * How workflow calls are claimed, refused, listed and kept.
   * @default `{ useClass: WorkflowGate, leaseMs: 15_000, transactional: false, refusal: 'result', handleToolsMenu: 'used' }`
   */
  gate?: McpGateOptions;
  /**
   * What the server asks the client for mid-call: confirmations (`@McpConfirm`) and
   * input-required results, the wait, and the key that signs `requestState`.
   * @default `{ timeoutMs: 300_000, requestStateKey: <random per process>, requestStateTtlMs: 600_000, maxRounds: 8 }`
   */
  inputRequests?: McpInputRequestOptions;
  /**
   * Carries transitions between processes that share the store, so sessions on every
   * instance get `list_changed` (for example `new PostgresTransitionRelay(dataSource)`).
   * @default none: notifications reach the sessions of this process only
   */
  transitionRelay?: TransitionRelay;
  /**
   * Menus from memory: the states of the instances this process's sessions follow, kept by
   * its own transitions and the relay's messages, so a list costs the same for 1 or 1,000
   * followed instances (`true`/`false` set `enabled`). See docs/deployment.md#menus-from-memory-statecache.
   * @default `{ enabled: false, maxInstances: 10_000, maxAgeMs: 60_000 }`
   */
  stateCache?: McpStateCacheOptions | boolean;
  /**
   * MCP tasks (a `tools/call` with `params.task`, for tools declared with `@McpTool({ task })`):
   * where they live, how long they are kept, how many one requester may hold. See docs/approvals-and-tasks.md#tasks.
   * @default `{ store: new InMemoryMcpTaskStore(), defaultTtlMs: 86_400_000, maxTtlMs: 604_800_000, pollIntervalMs: 1_000, maxActivePerRequester: 100, sweepIntervalMs: 60_000 }`
   */
  tasks?: McpTaskOptions;
  /**
   * Request-scoped (or transient-dependent) tool providers are resolved per call when `true`,
   * and refused at bootstrap when `false`.
   * @default true
   */
  allowRequestScoped?: boolean;
  /**
   * Serve each workflow as MCP resources: its diagram (`workflow://<machine>/diagram`, Mermaid)
   * and the caller's instance (state, context, allowed tools and the diagram with the state
   * highlighted: `workflow://<machine>/instance` for a session-keyed machine,
   * `workflow://<machine>/instance/{handle}` for a handle-keyed one, owner only).
   * @default false
   */
  workflowResources?: boolean;
  /**
   * The workflow console in the browser: `true` (or options) serves it at `/workflows`
   * (see {@link McpConsoleOptions}); the store needs the read methods (both shipped stores have them).
   * @default false
   */
  console?: McpConsoleOptions | boolean;
  /**
   * Escape hatch: called with each connection's SDK `Server` before it connects, after the
   * module registered its handlers. Register what the module does not serve (sampling
   * handlers, extra capabilities with `server.registerCapabilities`). Replacing the module's
   * handlers (`tools/*`, `prompts/*`, `resources/*`, `completion/complete`,
   * `logging/setLevel`) bypasses the gate, its menus and `list_changed`.
   */
  configureServer?: (server: Server, connection: { kind: 'stateful' | 'stateless' | 'stdio'; sessionId?: string }) => void;
  /** Traces and metrics (OpenTelemetry). @default `{ enabled: true, recordArguments: false, recordResults: false }` */
  telemetry?: McpTelemetryOptions;
}

/** Injection token of the {@link McpModuleOptions} as the app gave them (`forRoot`, or the factory of `forRootAsync`). */
export const MCP_MODULE_OPTIONS = 'MCP_MODULE_OPTIONS';
