import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { resolveAuth } from './auth-options.resolver.js';

const jwt = { issuer: 'https://auth.example.com', jwksUrl: 'https://auth.example.com/jwks' };
const verifier = { verifyAccessToken: async (token: string): Promise<AuthInfo> => ({ token, clientId: 'a', scopes: [] }) };

describe('resolveAuth', () => {
  it('is off by default: the caller from req.auth, nobody required, no metadata', () => {
    expect(resolveAuth({})).toMatchObject({ mode: 'request', required: false, metadata: false, authorizationServers: [] });
  });

  it('fills the JWT defaults, and names the issuer as the authorization server', () => {
    const resolved = resolveAuth({ jwt });
    expect(resolved).toMatchObject({ mode: 'jwt', required: true, metadata: true, authorizationServers: ['https://auth.example.com'] });
    expect(resolved.jwt).toEqual({
      ...jwt,
      audience: undefined,
      algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'],
      clockToleranceMs: 5_000,
      principalClaim: 'sub',
      scopeClaim: 'scope',
      rolesClaim: 'roles',
      jwksCooldownMs: 30_000,
      jwksCacheMaxAgeMs: 600_000,
      jwksTimeoutMs: 5_000,
      jwksMaxBytes: 262_144,
    });
  });

  it('takes auth.fromRequest as the way to know the caller, and only in request mode', () => {
    const fromRequest = () => undefined;
    expect(resolveAuth({ fromRequest }).fromRequest).toBe(fromRequest);
    expect(resolveAuth({}).fromRequest).toBeUndefined();
  });

  it('refuses two ways of knowing the caller, a verifier without authorization servers, and bad URLs or scopes', () => {
    expect(() => resolveAuth({ jwt, verifier })).toThrow('auth sets auth.jwt and auth.verifier; set one');
    expect(() => resolveAuth({ verifier })).toThrow('auth.verifier needs auth.authorizationServers');
    expect(() => resolveAuth({ jwt: { ...jwt, issuer: 'auth.example.com' } })).toThrow('auth.jwt.issuer must be an absolute http(s) URL');
    expect(() => resolveAuth({ jwt, resource: 'https://mcp.example.com/mcp#x' })).toThrow('auth.resource must be');
    expect(() => resolveAuth({ jwt, scopesSupported: ['two words'] })).toThrow('"two words", which is not an OAuth scope');
    expect(() => resolveAuth({ jwt: { ...jwt, jwksCooldownMs: -1 } })).toThrow('auth.jwt.jwksCooldownMs must be a whole number');
  });

  it('reads roles from AuthInfo.extra.roles by default', () => {
    const { roles } = resolveAuth({});
    expect(roles({ token: '', clientId: 'a', scopes: [], extra: { roles: ['x', 'y'] } })).toEqual(['x', 'y']);
    expect(roles({ token: '', clientId: 'a', scopes: [], extra: { roles: 'x' } })).toEqual([]);
    expect(roles({ token: '', clientId: 'a', scopes: [] })).toEqual([]);
  });
});
