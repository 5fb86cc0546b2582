import type { Provider } from '@nestjs/common';
import { WORKFLOW_GATE_OBSERVER } from '../gating/fsm-gate-observer.interface.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../options/mcp-resolved-options.interface.js';
import { McpTelemetry } from './mcp-telemetry.js';

/** The module's telemetry (the API imported once, when enabled), and the gate's observer it provides. */
export const telemetryProviders: Provider[] = [
  {
    provide: McpTelemetry,
    useFactory: (options: McpResolvedOptions) => McpTelemetry.create(options.telemetry),
    inject: [MCP_RESOLVED_OPTIONS],
  },
  { provide: WORKFLOW_GATE_OBSERVER, useFactory: (telemetry: McpTelemetry) => telemetry.gate, inject: [McpTelemetry] },
];
