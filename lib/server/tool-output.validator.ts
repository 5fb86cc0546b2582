import type { McpToolDefinition } from '../discovery/mcp-tool-definition.interface.js';
import * as messages from '../mcp.messages.js';
import { toCallToolResult } from './tool-result.mapper.js';

/**
 * Checks a handler's successful return value against the tool's `outputSchema` (clients
 * validate `structuredContent` against it too); throws an error naming each mismatch.
 */
export function assertToolOutput(tool: McpToolDefinition, value: unknown, extra: Record<string, unknown>): void {
  if (!tool.outputSchema) {
    return;
  }
  const result = toCallToolResult(value, extra);
  if (result.isError) {
    return;
  }
  const parsed = tool.outputSchema.safeParse(result.structuredContent);
  if (!parsed.success) {
    throw new Error(messages.invalidOutput(tool.name, parsed.error.issues));
  }
}
