/** What discovery reads: which handlers it accepts and which it adds. */
export interface McpDiscoveryOptions {
  allowRequestScoped: boolean;
  workflowResources: boolean;
}

/** Injection token of the {@link McpDiscoveryOptions}. */
export const MCP_DISCOVERY_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpDiscoveryOptions');
