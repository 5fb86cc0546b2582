import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A result with `structuredContent` and the same JSON as text, as the sample answers. */
export const structured = (content: Record<string, unknown>): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(content) }],
  structuredContent: content,
});

/** A refused call, as a tool error the model reads. */
export const refused = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });
