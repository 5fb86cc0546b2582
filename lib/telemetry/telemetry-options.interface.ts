/**
 * Traces and metrics through `@opentelemetry/api` (an optional peer; the app registers the
 * SDK): spans, attributes and metrics in docs/observability.md.
 */
export interface McpTelemetryOptions {
  /** `false`: no span, no metric, and the API is not imported. @default true (a no-op until an SDK is registered) */
  enabled?: boolean;
  /**
   * Record each `tools/call`'s arguments on its span as `gen_ai.tool.call.arguments` (JSON).
   * They may hold personal or payment data. @default false
   */
  recordArguments?: boolean;
  /** Record each successful `tools/call`'s result on its span as `gen_ai.tool.call.result` (JSON). @default false */
  recordResults?: boolean;
  /**
   * Key of the keyed hash (HMAC-SHA-256) that `workflow.instance.id` is. Give every replica
   * the same one (from a secret) so an instance has one id across replicas and restarts.
   * @default 32 random bytes per process
   */
  instanceDigestKey?: string | Uint8Array;
}

/** `telemetry` with every default filled in. */
export interface McpResolvedTelemetryOptions {
  enabled: boolean;
  recordArguments: boolean;
  recordResults: boolean;
  instanceDigestKey: string | Uint8Array;
}

/** Injection token of the {@link McpResolvedTelemetryOptions}. */
export const MCP_TELEMETRY_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedTelemetryOptions');
