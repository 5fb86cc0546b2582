/** What a developer reads about the module options at startup: worded once. */

/** Startup error: a `telemetry.instanceDigestKey` too short to key a hash that must not be reversible. */
export const digestKeyTooShort = (length: number, minimum: number): string =>
  `McpModule: telemetry.instanceDigestKey has ${length} bytes; give at least ${minimum} (for example 32 random bytes from a secret), so workflow.instance.id cannot be traced back to a handle or session.`;

/** Startup error: more than one way of knowing the caller in `auth`. */
export const authModesConflict = (given: readonly string[]): string =>
  `McpModule: auth sets ${given.map((name) => `auth.${name}`).join(' and ')}; set one: auth.jwt (bearer JWTs verified against the issuer's JWKS), auth.verifier (your own token verifier) or auth.fromRequest (the caller your middleware found).`;

/** Startup error: an `auth` URL option that is not an absolute http(s) URL. */
export const authUrlInvalid = (option: string, value: unknown): string =>
  `McpModule: ${option} must be an absolute http(s) URL without a fragment (e.g. 'https://auth.example.com'); got ${JSON.stringify(value)}.`;

/** Startup error: `auth.verifier` without the authorization servers the metadata must name. */
export const authorizationServersRequired = (): string =>
  "McpModule: auth.verifier needs auth.authorizationServers (e.g. ['https://auth.example.com']): MCP clients find where to get a token in the protected-resource metadata.";

/** Startup error: a scope in `auth.scopesSupported` that OAuth does not allow. */
export const scopeInvalid = (option: string, scope: string): string =>
  `McpModule: ${option} has ${JSON.stringify(scope)}, which is not an OAuth scope (printable ASCII without spaces, '"' or '\\').`;

/** Startup error: `inputRequests.requestStateKey` is too short for HMAC-SHA256. */
export const requestStateKeyTooShort = (bytes: number, least: number): string =>
  `McpModule: inputRequests.requestStateKey has ${bytes} bytes; it needs at least ${least} (for example 64 hex characters from \`openssl rand -hex 32\`), the same on every replica.`;
