/** `transports.stdio` resolved: the key of the one stdio attachment's session-keyed instances. */
export interface McpResolvedStdioOptions {
  attachmentId: string;
}

/** Injection token of the {@link McpResolvedStdioOptions} (`null` when stdio is off). */
export const MCP_STDIO_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedStdioOptions');
