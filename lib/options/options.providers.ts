import type { Provider } from '@nestjs/common';
import { WORKFLOW_CONFIRMATION_OPTIONS, type WorkflowConfirmationOptions } from '../gating/confirmation-options.interface.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import { MCP_STATE_CACHE_OPTIONS } from '../sessions/state-cache-options.interface.js';
import { MCP_TASK_OPTIONS } from '../tasks/task-options.interface.js';
import { MCP_TELEMETRY_OPTIONS } from '../telemetry/telemetry-options.interface.js';
import { MCP_MODULE_OPTIONS, type McpModuleOptions } from './mcp-module-options.interface.js';
import { resolveMcpOptions } from './mcp-options.resolver.js';
import { MCP_AUTH_OPTIONS } from '../auth/auth-options.interface.js';
import { MCP_CONSOLE_OPTIONS } from '../console/console-options.interface.js';
import { MCP_DISCOVERY_OPTIONS } from '../discovery/discovery-options.interface.js';
import { MCP_INPUT_REQUEST_OPTIONS } from '../protocol/input-request-options.interface.js';
import { MCP_HTTP_OPTIONS } from '../server/http-options.interface.js';
import { MCP_SERVER_IDENTITY } from '../server/mcp-server-identity.js';
import { MCP_SESSION_OPTIONS } from '../sessions/session-options.interface.js';
import { MCP_STDIO_OPTIONS } from '../transports/stdio-options.interface.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from './mcp-resolved-options.interface.js';

/** The module options with their defaults, resolved once. */
export const resolvedOptionsProvider: Provider = {
  provide: MCP_RESOLVED_OPTIONS,
  useFactory: (options: McpModuleOptions): McpResolvedOptions => resolveMcpOptions(options),
  inject: [MCP_MODULE_OPTIONS],
};

/** The slices of the resolved options, each under its own token, so a class injects only what it reads. */
export const optionSliceProviders = [
  { provide: MCP_SERVER_IDENTITY, useFactory: (options: McpResolvedOptions) => options.server, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_HTTP_OPTIONS, useFactory: (options: McpResolvedOptions) => options.http, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_STDIO_OPTIONS, useFactory: (options: McpResolvedOptions) => options.stdio, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_SESSION_OPTIONS, useFactory: (options: McpResolvedOptions) => options.sessions, inject: [MCP_RESOLVED_OPTIONS] },
  {
    provide: WORKFLOW_GATE_OPTIONS,
    useFactory: (options: McpResolvedOptions): WorkflowGateOptions => options.gate,
    inject: [MCP_RESOLVED_OPTIONS],
  },
  { provide: MCP_DISCOVERY_OPTIONS, useFactory: (options: McpResolvedOptions) => options.discovery, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_AUTH_OPTIONS, useFactory: (options: McpResolvedOptions) => options.auth, inject: [MCP_RESOLVED_OPTIONS] },
  {
    provide: MCP_INPUT_REQUEST_OPTIONS,
    useFactory: (options: McpResolvedOptions) => options.inputRequests,
    inject: [MCP_RESOLVED_OPTIONS],
  },
  {
    provide: WORKFLOW_CONFIRMATION_OPTIONS,
    useFactory: ({ inputRequests }: McpResolvedOptions): WorkflowConfirmationOptions => ({
      timeoutMs: inputRequests.timeoutMs,
      requestStateTtlMs: inputRequests.requestStateTtlMs,
    }),
    inject: [MCP_RESOLVED_OPTIONS],
  },
  { provide: MCP_CONSOLE_OPTIONS, useFactory: (options: McpResolvedOptions) => options.console, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_STATE_CACHE_OPTIONS, useFactory: (options: McpResolvedOptions) => options.stateCache, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_TASK_OPTIONS, useFactory: (options: McpResolvedOptions) => options.tasks, inject: [MCP_RESOLVED_OPTIONS] },
  { provide: MCP_TELEMETRY_OPTIONS, useFactory: (options: McpResolvedOptions) => options.telemetry, inject: [MCP_RESOLVED_OPTIONS] },
] satisfies Provider[];
