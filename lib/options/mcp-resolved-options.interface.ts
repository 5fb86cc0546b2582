import type { McpResolvedAuthOptions } from '../auth/auth-options.interface.js';
import type { McpResolvedConsoleOptions } from '../console/console-options.interface.js';
import type { McpDiscoveryOptions } from '../discovery/discovery-options.interface.js';
import type { WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import type { McpMachine } from '../machines/machine.interface.js';
import type { McpResolvedInputRequestOptions } from '../protocol/input-request-options.interface.js';
import type { TransitionRelay } from '../relays/transition-relay.interface.js';
import type { McpResolvedHttpOptions } from '../server/http-options.interface.js';
import type { McpServerIdentity } from '../server/mcp-server-identity.js';
import type { McpResolvedSessionOptions } from '../sessions/session-options.interface.js';
import type { McpResolvedStateCacheOptions } from '../sessions/state-cache-options.interface.js';
import type { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import type { McpResolvedTaskOptions } from '../tasks/task-options.interface.js';
import type { McpResolvedTelemetryOptions } from '../telemetry/telemetry-options.interface.js';
import type { McpResolvedStdioOptions } from '../transports/stdio-options.interface.js';

/**
 * The module options with every default filled in, resolved once when the module starts, grouped
 * by what they configure. Each slice's type and injection token live beside the feature that
 * reads it; this type only composes them.
 */
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
