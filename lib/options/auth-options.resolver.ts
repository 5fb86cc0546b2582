import { ageMs, bytes, checkNumericOption, timerMs } from '../checks/numeric-option.check.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { isScopeToken } from '../access/access-requirement.js';
import type { McpAuthOptions, McpResolvedAuthOptions } from '../auth/auth-options.interface.js';
import type { McpJwtOptions, McpResolvedJwtOptions } from '../auth/jwt-options.interface.js';
import * as messages from './options.messages.js';

/** The signature algorithms `auth.jwt` accepts by default: asymmetric ones only. */
export const DEFAULT_JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];
/** Default clock skew tolerated on `exp`, `nbf` and `iat`. */
export const DEFAULT_JWT_CLOCK_TOLERANCE_MS = 5_000;
/** Default time after a JWKS fetch during which an unknown `kid` does not fetch it again. */
export const DEFAULT_JWKS_COOLDOWN_MS = 30_000;
/** Default time fetched keys are used before they are fetched again. */
export const DEFAULT_JWKS_CACHE_MAX_AGE_MS = 600_000;
/** Default time a JWKS fetch may take. */
export const DEFAULT_JWKS_TIMEOUT_MS = 5_000;
/** Default `auth.jwt.jwksMaxBytes`: the largest JWKS response read. */
export const DEFAULT_JWKS_MAX_BYTES = 256 * 1024;

/** `auth` with its defaults filled in and checked (part of `resolveMcpOptions`). */
export function resolveAuth(auth: McpAuthOptions): McpResolvedAuthOptions {
  const given = (['jwt', 'verifier', 'fromRequest'] as const).filter((name) => auth[name] !== undefined);
  if (given.length > 1) {
    throw new Error(messages.authModesConflict(given));
  }
  const mode = auth.jwt ? 'jwt' : auth.verifier ? 'verifier' : 'request';
  if (auth.resource !== undefined) {
    checkUrl('auth.resource', auth.resource);
  }
  for (const server of auth.authorizationServers ?? []) {
    checkUrl('auth.authorizationServers', server);
  }
  if (mode === 'verifier' && !auth.authorizationServers?.length) {
    throw new Error(messages.authorizationServersRequired());
  }
  for (const scope of auth.scopesSupported ?? []) {
    if (!isScopeToken(scope)) {
      throw new Error(messages.scopeInvalid('auth.scopesSupported', scope));
    }
  }
  const jwt = auth.jwt && resolveJwt(auth.jwt);
  const authorizationServers = auth.authorizationServers ?? (jwt ? [jwt.issuer] : []);
  return {
    mode,
    jwt,
    verifier: auth.verifier,
    fromRequest: mode === 'request' ? auth.fromRequest : undefined,
    required: auth.required ?? mode !== 'request',
    resource: auth.resource,
    authorizationServers,
    scopesSupported: [...new Set(auth.scopesSupported ?? [])],
    roles: auth.roles ?? rolesOfExtra,
    metadata: mode !== 'request' || authorizationServers.length > 0,
  };
}

function resolveJwt(jwt: McpJwtOptions): McpResolvedJwtOptions {
  checkUrl('auth.jwt.issuer', jwt.issuer);
  checkUrl('auth.jwt.jwksUrl', jwt.jwksUrl);
  const resolved: McpResolvedJwtOptions = {
    issuer: jwt.issuer,
    jwksUrl: jwt.jwksUrl,
    audience: jwt.audience,
    algorithms: jwt.algorithms ?? DEFAULT_JWT_ALGORITHMS,
    clockToleranceMs: jwt.clockToleranceMs ?? DEFAULT_JWT_CLOCK_TOLERANCE_MS,
    principalClaim: jwt.principalClaim ?? 'sub',
    scopeClaim: jwt.scopeClaim ?? 'scope',
    rolesClaim: jwt.rolesClaim ?? 'roles',
    jwksCooldownMs: jwt.jwksCooldownMs ?? DEFAULT_JWKS_COOLDOWN_MS,
    jwksCacheMaxAgeMs: jwt.jwksCacheMaxAgeMs ?? DEFAULT_JWKS_CACHE_MAX_AGE_MS,
    jwksTimeoutMs: jwt.jwksTimeoutMs ?? DEFAULT_JWKS_TIMEOUT_MS,
    jwksMaxBytes: jwt.jwksMaxBytes ?? DEFAULT_JWKS_MAX_BYTES,
  };
  checkNumericOption('McpModule', 'auth.jwt.jwksMaxBytes', resolved.jwksMaxBytes, bytes());
  checkNumericOption('McpModule', 'auth.jwt.clockToleranceMs', resolved.clockToleranceMs, ageMs(0));
  checkNumericOption('McpModule', 'auth.jwt.jwksCooldownMs', resolved.jwksCooldownMs, ageMs(0));
  checkNumericOption('McpModule', 'auth.jwt.jwksCacheMaxAgeMs', resolved.jwksCacheMaxAgeMs, ageMs(0));
  checkNumericOption('McpModule', 'auth.jwt.jwksTimeoutMs', resolved.jwksTimeoutMs, timerMs(0));
  return resolved;
}

/** Throws unless `value` is an absolute http(s) URL without a fragment. */
function checkUrl(option: string, value: unknown): void {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash !== '') {
    throw new Error(messages.authUrlInvalid(option, value));
  }
}

/** The default `auth.roles`: `authInfo.extra.roles` when it is a list of strings. */
function rolesOfExtra(authInfo: AuthInfo): readonly string[] {
  const roles = authInfo.extra?.roles;
  return Array.isArray(roles) && roles.every((role) => typeof role === 'string') ? roles : [];
}
