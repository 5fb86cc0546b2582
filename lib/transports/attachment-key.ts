import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';

/** Default identity of the one in-process attachment (stdio, single-tenant stateless HTTP). */
export const DEFAULT_ATTACHMENT_ID = 'local';

/** Instance key of session-keyed machines for the in-process attachment. */
export function attachmentKey(options: McpModuleOptions): string {
  return `attachment:${options.attachmentId ?? DEFAULT_ATTACHMENT_ID}`;
}
