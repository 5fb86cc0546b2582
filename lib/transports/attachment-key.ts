import type { McpResolvedOptions } from '../options/mcp-options.resolver.js';
import type { McpSessionScope } from '../sessions/mcp-session.js';

/** Scope of the session-keyed instances of the one in-process attachment (stdio, single-tenant stateless HTTP). */
export function attachmentScope(options: McpResolvedOptions): McpSessionScope {
  return { scope: 'attachment', id: options.attachmentId };
}
