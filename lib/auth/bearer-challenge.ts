/** The parameters of a `WWW-Authenticate: Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1). */
export interface McpBearerChallenge {
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  /** The scopes the request needs (space-separated in the header). */
  scope?: readonly string[];
  /** The URL of the protected-resource metadata. */
  resourceMetadata?: string;
  description?: string;
}

/**
 * The `WWW-Authenticate` value of a challenge, in the order of the MCP authorization spec's
 * examples: `Bearer resource_metadata="…", scope="…"` without an error, `Bearer error="…",
 * scope="…", resource_metadata="…", error_description="…"` with one; each parameter only when
 * there is one. Quotes and backslashes, which a quoted string cannot carry plainly, are left
 * out of the description.
 */
export function bearerChallenge({ error, scope, resourceMetadata, description }: McpBearerChallenge): string {
  const scopes = scope?.length ? `scope="${scope.join(' ')}"` : undefined;
  const metadata = resourceMetadata ? `resource_metadata="${resourceMetadata}"` : undefined;
  const params = error
    ? [`error="${error}"`, scopes, metadata, description && `error_description="${description.replace(/["\\]/g, '')}"`]
    : [metadata, scopes];
  const given = params.filter((param): param is string => Boolean(param));
  return given.length ? `Bearer ${given.join(', ')}` : 'Bearer';
}

/**
 * The bearer token of a request, read from the Authorization header only: `undefined` without
 * one (no header, or another scheme such as Basic), `'malformed'` for a `Bearer` header whose
 * token is not a token68 (RFC 6750 §2.1).
 */
export function bearerTokenOf(authorization: string | undefined): string | 'malformed' | undefined {
  const [scheme, ...rest] = (authorization ?? '').trim().split(/ +/);
  if (scheme.toLowerCase() !== 'bearer') {
    return undefined;
  }
  return rest.length === 1 && /^[A-Za-z0-9\-._~+/]+=*$/.test(rest[0]) ? rest[0] : 'malformed';
}

/** Whether a request URL carries an access token in its query string (RFC 6750 §2.3, which MCP forbids). */
export function hasQueryToken(url: string | undefined): boolean {
  const query = url?.indexOf('?') ?? -1;
  return query !== -1 && new URLSearchParams(url!.slice(query + 1)).has('access_token');
}
