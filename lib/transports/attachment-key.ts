import type { McpSessionScope } from '../sessions/mcp-session.js';

/** Scope of the session-keyed instances of the one in-process attachment (stdio, single-tenant stateless HTTP). */
export function attachmentScope(attachmentId: string): McpSessionScope {
  return { scope: 'attachment', id: attachmentId };
}
