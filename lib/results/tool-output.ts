import { InternalServerErrorException } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import * as messages from './results.messages.js';

/** Whether a handler returned a ready MCP tool result. */
function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as CallToolResult).content);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a handler's result is a tool error (`isError: true`), which fires no transition. */
export function isToolErrorResult(result: unknown): boolean {
  return isPlainObject(result) && result.isError === true;
}

/**
 * Turns a handler's return value into a `CallToolResult`: a result is kept as is, a string
 * becomes text, an object becomes `structuredContent` plus its JSON as text. `extra` fields
 * (a start tool's handle) are merged into the structured content and the text.
 */
export function toCallToolResult(value: unknown, extra: Record<string, unknown> = {}): CallToolResult {
  const hasExtra = Object.keys(extra).length > 0;
  if (isCallToolResult(value)) {
    if (!hasExtra) {
      return value;
    }
    return {
      ...value,
      content: [...value.content, { type: 'text', text: JSON.stringify(extra) }],
      structuredContent: { ...(value.structuredContent ?? {}), ...extra },
    };
  }
  if (value === undefined || value === null) {
    return hasExtra ? { content: [{ type: 'text', text: JSON.stringify(extra) }], structuredContent: extra } : { content: [] };
  }
  if (typeof value === 'string') {
    return hasExtra
      ? { content: [{ type: 'text', text: value }, { type: 'text', text: JSON.stringify(extra) }], structuredContent: extra }
      : { content: [{ type: 'text', text: value }] };
  }
  if (isPlainObject(value)) {
    const structured = { ...value, ...extra };
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  }
  return { content: [{ type: 'text', text: JSON.stringify(value) }], ...(hasExtra ? { structuredContent: extra } : {}) };
}

/**
 * Checks a tool's successful result against its `outputSchema` (clients validate
 * `structuredContent` against it too); throws an `InternalServerErrorException` naming each
 * mismatch (field names and zod's wording only, no values, so the text is safe to show).
 */
export function assertToolOutput(tool: McpHandlerDefinition, result: CallToolResult): void {
  if (!tool.outputSchema) {
    return;
  }
  const parsed = tool.outputSchema.safeParse(result.structuredContent);
  if (!parsed.success) {
    throw new InternalServerErrorException(messages.invalidOutput(tool.name, parsed.error.issues));
  }
}
