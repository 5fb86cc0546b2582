import { HttpException } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The message of an `HttpException` thrown by a handler, a guard, a pipe or an interceptor. */
export function errorMessage(error: HttpException): string {
  const response = error.getResponse();
  if (typeof response === 'object' && response !== null && 'message' in response) {
    const message = (response as { message: unknown }).message;
    return Array.isArray(message) ? message.join('; ') : String(message);
  }
  return error.message;
}

/** A tool error result with one text. */
export function toolErrorResult(text: string, meta?: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }], ...(meta ? { _meta: meta } : {}) };
}
