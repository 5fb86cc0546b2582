import type { Provider } from '@nestjs/common';
import { WORKFLOW_GATE_OBSERVER } from '../gating/workflow-gate-observer.interface.js';
import { composeGateObservers } from '../gating/gate-observers.js';
import { WorkflowAttemptRecorder } from '../gating/workflow-attempts.recorder.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../options/mcp-resolved-options.interface.js';
import { McpTelemetry } from './mcp-telemetry.js';

/** The module's telemetry (the API imported once, when enabled), and the gate's observer: its telemetry, then the attempts recorder. */
export const telemetryProviders: Provider[] = [
  {
    provide: McpTelemetry,
    useFactory: (options: McpResolvedOptions) => McpTelemetry.create(options.telemetry),
    inject: [MCP_RESOLVED_OPTIONS],
  },
  {
    provide: WORKFLOW_GATE_OBSERVER,
    useFactory: (telemetry: McpTelemetry, attempts: WorkflowAttemptRecorder) => composeGateObservers(telemetry.gate, attempts),
    inject: [McpTelemetry, WorkflowAttemptRecorder],
  },
];
