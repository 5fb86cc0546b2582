import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';

/**
 * Verifies a bearer access token: opaque tokens checked by introspection, tokens of an issuer
 * the built-in JWT verification does not fit. The same shape as the SDK's `OAuthTokenVerifier`,
 * so one of those can be passed as it is.
 *
 * Resolve with the token's `AuthInfo`: `clientId` is the principal sessions and handles are
 * bound to, `scopes` what `@McpRequire` checks, `expiresAt` (seconds since the epoch) is
 * checked, and `resource`, when set, must be this server's resource URL (RFC 8707). Reject
 * (any error) for a token that is not valid: the request gets HTTP 401 `invalid_token`. Reject
 * with `McpAuthUnavailableError` when the token cannot be checked now (the introspection
 * endpoint is down): the request gets HTTP 503, and the client keeps its token.
 */
export interface McpTokenVerifier {
  verifyAccessToken(token: string): Promise<AuthInfo>;
}
