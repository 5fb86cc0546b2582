import type { GetPromptResult, PromptMessage, ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** A prompt handler's value as `prompts/get` answers it: a result as is, a string as one user message, an array as the messages. */
export function toGetPromptResult(value: unknown, description?: string): GetPromptResult {
  if (isObject(value) && Array.isArray(value.messages)) {
    return value as GetPromptResult;
  }
  const messages: PromptMessage[] = Array.isArray(value)
    ? (value as PromptMessage[])
    : [{ role: 'user', content: { type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) } }];
  return description === undefined ? { messages } : { description, messages };
}

/**
 * A resource handler's value as `resources/read` answers it: a result as is, a string as
 * text, bytes as a base64 blob, anything else as JSON text.
 */
export function toReadResourceResult(value: unknown, uri: string, mimeType?: string): ReadResourceResult {
  if (isObject(value) && Array.isArray(value.contents)) {
    return value as ReadResourceResult;
  }
  if (value instanceof Uint8Array) {
    return { contents: [{ uri, mimeType, blob: Buffer.from(value).toString('base64') }] };
  }
  if (typeof value === 'string') {
    return { contents: [{ uri, mimeType, text: value }] };
  }
  return { contents: [{ uri, mimeType: mimeType ?? 'application/json', text: JSON.stringify(value) }] };
}
