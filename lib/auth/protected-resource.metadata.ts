/** The well-known path of OAuth protected-resource metadata (RFC 9728 §3). */
const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** OAuth 2.0 Protected Resource Metadata (RFC 9728 §2), as this server publishes it. */
export interface McpProtectedResourceMetadata {
  resource: string;
  authorization_servers?: string[];
  scopes_supported: string[];
  bearer_methods_supported: ['header'];
  resource_name?: string;
}

/**
 * The metadata URL of a resource (RFC 9728 §3.1): the well-known path inserted between the
 * resource URL's origin and its path (`https://h/mcp` → `https://h/.well-known/oauth-protected-resource/mcp`).
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return `${url.origin}${PROTECTED_RESOURCE_WELL_KNOWN}${path}`;
}

/**
 * The request paths the metadata of a resource with path `resourcePath` is served on: the
 * path-suffixed form (RFC 9728 §3.1), and the bare well-known path, which clients of the
 * 2025-03-26 revision try.
 */
export function protectedResourceMetadataPaths(resourcePath: string): string[] {
  const path = resourcePath === '/' ? '' : resourcePath.replace(/\/$/, '');
  return path ? [`${PROTECTED_RESOURCE_WELL_KNOWN}${path}`, PROTECTED_RESOURCE_WELL_KNOWN] : [PROTECTED_RESOURCE_WELL_KNOWN];
}
