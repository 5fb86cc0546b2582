/**
 * `transports.http` with every default filled in (the option interface is
 * `transports/http-transport-options.interface.ts`). It sits in this leaf because the transport,
 * the protocol (its shutdown drain, the 2026-07-28 list cache) and the console all read it.
 */
export interface McpResolvedHttpOptions {
  path: string;
  stateless: boolean;
  direct: boolean;
  drainMs: number;
  maxBodyBytes: number;
  singleTenant: boolean;
  listCacheTtlMs: number;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** `undefined`: both eras when the SDK v2 packages are installed. */
  protocolEras?: ('2025-11-25' | '2026-07-28')[];
  /** Key of the session-keyed instances of stateless HTTP with `singleTenant`. */
  attachmentId: string;
}

/** Injection token of the {@link McpResolvedHttpOptions} (`null` when HTTP is off). */
export const MCP_HTTP_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedHttpOptions');
