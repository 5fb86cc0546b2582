/** Bearer JWT verification against an issuer's JWKS (`auth.jwt`). */
export interface McpJwtOptions {
  /** The `iss` tokens must carry, e.g. `'https://auth.example.com'`. */
  issuer: string;
  /** Where the issuer publishes its signing keys (JWKS), e.g. `'https://auth.example.com/.well-known/jwks.json'`. */
  jwksUrl: string;
  /**
   * The `aud` tokens must carry (one of them, when a list).
   * @default `auth.resource` (RFC 8707: tokens are minted for this server's URL)
   */
  audience?: string | string[];
  /**
   * Signature algorithms accepted. Only asymmetric ones by default: `alg: none` and tokens
   * signed with a shared secret (an HS256 token "signed" with the public key) are refused.
   * @default ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA']
   */
  algorithms?: string[];
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in milliseconds. @default 5_000 */
  clockToleranceMs?: number;
  /** The claim whose value is the principal (`AuthInfo.clientId`), which sessions and handles are bound to. @default 'sub' */
  principalClaim?: string;
  /** The claim holding the scopes: a space-separated string (or a list). @default 'scope' */
  scopeClaim?: string;
  /** The claim holding the caller's roles (a list, or a space-separated string), put in `AuthInfo.extra.roles`. @default 'roles' */
  rolesClaim?: string;
  /** Time after a JWKS fetch during which a token with an unknown `kid` does not fetch it again. @default 30_000 */
  jwksCooldownMs?: number;
  /** How long fetched keys are used before they are fetched again. @default 600_000 (10 minutes) */
  jwksCacheMaxAgeMs?: number;
  /** How long a JWKS fetch may take; a slower one fails closed (HTTP 503). @default 5_000 */
  jwksTimeoutMs?: number;
  /**
   * The largest JWKS response read, in bytes; a larger one is not read further and fails
   * closed (HTTP 503, the log says why). A JWKS of a dozen RSA keys is a few kilobytes.
   * @default 262_144 (256 KiB)
   */
  jwksMaxBytes?: number;
}

/** `auth.jwt` with every default filled in (`audience` stays unset when it is the resource URL, known once the server listens). */
export type McpResolvedJwtOptions = Required<Omit<McpJwtOptions, 'audience'>> & Pick<McpJwtOptions, 'audience'>;
