import { echo } from '../client-input/client-input.echo.js';

/** What a client or an operator reads about authentication and authorization: worded once. Tokens never appear here. */

/** Startup error: `auth.jwt` without the optional peer `jose`. */
export const joseMissing = (): string =>
  'McpModule: auth.jwt verifies tokens with the optional peer "jose", which is not installed: npm install jose';

/** Startup error, then the reason of every 503: `jose` is installed but this runtime cannot load it. */
export const joseUnloadable = (reason: string): string =>
  `McpModule: auth.jwt verifies tokens with "jose", an ES module this runtime could not load (${reason.split('\n')[0]}); requests with a bearer token get HTTP 503 until it can. Under Jest in CommonJS mode, run Jest with ES modules, or test tools through createMcpTestClient (docs/testing.md).`;

/** Startup error: no resource URL for a server that listens beyond loopback. */
export const resourceRequired = (address: string): string =>
  `McpModule: the HTTP server listens on ${address}, beyond loopback, so this server cannot tell the URL clients reach it at; set auth.resource, e.g. auth.resource: 'https://mcp.example.com/mcp' (the audience tokens are minted for, RFC 8707).`;

/** `error_description` of a request without a bearer token. */
export const tokenMissing = (): string => 'This MCP server requires a bearer token in the Authorization header.';

/** `error_description` and message of a token in the query string. */
export const tokenInQuery = (): string =>
  'Access tokens are accepted only in the Authorization header (Bearer), never in the query string.';

/** `error_description` of an Authorization header that is not `Bearer <token>`. */
export const notBearer = (): string => 'The Authorization header must be "Bearer <token>".';

/** `error_description` of a token whose `exp` has passed. */
export const tokenExpired = (): string => 'The access token expired.';

/** `error_description` of a token whose `nbf` is in the future. */
export const tokenNotYetValid = (): string => 'The access token is not valid yet (nbf).';

/** `error_description` of a token whose `iat` is later than now (beyond the clock tolerance). */
export const tokenIssuedInFuture = (): string => 'The access token was issued in the future (iat).';

/** Why a JWKS fetch failed: its response was larger than `auth.jwt.jwksMaxBytes`. */
export const jwksTooLarge = (maxBytes: number): string =>
  `the JWKS response is larger than ${maxBytes} bytes (auth.jwt.jwksMaxBytes) and was not read further`;

/** `error_description` of a token minted for another audience. */
export const wrongAudience = (): string => 'The access token was not issued for this resource (aud).';

/** `error_description` of a token of another issuer. */
export const wrongIssuer = (): string => 'The access token was not issued by the expected issuer (iss).';

/** `error_description` of a token without a claim the server needs. */
export const claimMissing = (claim: string): string => `The access token has no valid "${echo(claim)}" claim.`;

/** `error_description` of a token signed with an algorithm the server does not accept. */
export const algorithmRefused = (): string => 'The access token is signed with an algorithm this server does not accept.';

/** `error_description` of a token signed with a key the issuer does not publish. */
export const unknownKey = (): string => "The access token is signed with a key that is not in the issuer's key set.";

/** `error_description` of any other token that does not verify. */
export const tokenInvalid = (): string => 'The access token is not valid.';

/** `error_description` of a custom verifier's `AuthInfo` for another resource. */
export const verifiedForOtherResource = (): string => 'The access token was issued for another resource (RFC 8707).';

/** HTTP 503: the token cannot be checked now. */
export const verificationUnavailable = (): string =>
  'The access token cannot be checked right now (the authorization server does not answer); retry shortly.';

/** Log line: the JWKS did not answer; requests with tokens are refused meanwhile. */
export const jwksUnreachable = (url: string, reason: string): string =>
  `Token verification unavailable: the JWKS at ${url} could not be fetched (${reason}); requests with a bearer token get HTTP 503 (fail closed) until it answers.`;

/** Log line: a custom verifier could not check a token. */
export const verifierUnavailable = (reason: string): string =>
  `Token verification unavailable: the token verifier could not check a token (${reason}); the request got HTTP 503 (fail closed).`;

/** Log line: the roles hook failed; the caller gets no roles. */
export const rolesFailed = (principal: string | undefined, reason: string): string =>
  `auth.roles failed for principal "${echo(principal ?? '(anonymous)')}" (${reason}); the request has no roles, so what requires one is hidden and refused.`;

/** `error_description` and message of a call that needs scopes the token lacks. */
export const insufficientScope = (kind: string, name: string, scopes: readonly string[]): string =>
  `The ${kind} "${echo(name)}" needs the scope${scopes.length > 1 ? 's' : ''} ${scopes.join(' ')}, which the access token lacks.`;

/** Message of a call that needs a role the caller lacks. */
export const roleMissing = (kind: string, name: string, roles: readonly string[]): string =>
  `The ${kind} "${echo(name)}" needs one of the roles ${roles.join(', ')}, which this caller does not hold.`;

/** Message of a plain HTTP request that needs scopes the token lacks (an app route checked with `McpAuthenticator.authorize`). */
export const routeNeedsScopes = (scopes: readonly string[]): string =>
  `This resource needs the scope${scopes.length > 1 ? 's' : ''} ${scopes.join(' ')}, which the access token lacks.`;

/** Message of a plain HTTP request that needs a role the caller lacks. */
export const routeNeedsRole = (roles: readonly string[]): string => `This resource needs one of the roles ${roles.join(', ')}.`;
