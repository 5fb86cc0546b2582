import { HttpException } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** Whether a handler returned a ready MCP tool result. */
function isCallToolResult(value: unknown): value is CallToolResult {
  return typeof value === 'object' && value !== null && Array.isArray((value as CallToolResult).content);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

/** The message of an error thrown by a handler, a guard, a pipe or an interceptor. */
export function errorMessage(error: unknown): string {
  if (error instanceof HttpException) {
    const response = error.getResponse();
    if (typeof response === 'object' && response !== null && 'message' in response) {
      const message = (response as { message: unknown }).message;
      return Array.isArray(message) ? message.join('; ') : String(message);
    }
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/** A tool error result with one text. */
export function toolErrorResult(text: string, meta?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(meta ? { _meta: meta } : {}) };
}
