import { bearerChallenge, bearerTokenOf, hasQueryToken } from './bearer-challenge.js';
import { protectedResourceMetadataPaths, protectedResourceMetadataUrl } from './protected-resource.metadata.js';

describe('bearerChallenge', () => {
  it('writes the parameters in the order of the spec, each only when given', () => {
    expect(bearerChallenge({ scope: ['a:b'], resourceMetadata: 'https://h/m' })).toBe(
      'Bearer resource_metadata="https://h/m", scope="a:b"',
    );
    expect(bearerChallenge({})).toBe('Bearer');
    expect(bearerChallenge({ resourceMetadata: 'https://h/.well-known/oauth-protected-resource/mcp' })).toBe(
      'Bearer resource_metadata="https://h/.well-known/oauth-protected-resource/mcp"',
    );
    expect(
      bearerChallenge({ error: 'insufficient_scope', scope: ['a:b', 'c'], resourceMetadata: 'https://h/m', description: 'Needs a:b.' }),
    ).toBe('Bearer error="insufficient_scope", scope="a:b c", resource_metadata="https://h/m", error_description="Needs a:b."');
  });

  it('keeps quotes and backslashes out of the description', () => {
    expect(bearerChallenge({ error: 'invalid_token', description: 'the "kid" \\ is unknown' })).toBe(
      'Bearer error="invalid_token", error_description="the kid  is unknown"',
    );
  });
});

describe('bearerTokenOf', () => {
  it('reads a Bearer token (any case of the scheme), and nothing of other schemes', () => {
    expect(bearerTokenOf('Bearer abc.def-_~+/=')).toBe('abc.def-_~+/=');
    expect(bearerTokenOf('bearer abc')).toBe('abc');
    expect(bearerTokenOf(undefined)).toBeUndefined();
    expect(bearerTokenOf('')).toBeUndefined();
    expect(bearerTokenOf('Basic dXNlcjpwYXNz')).toBeUndefined();
  });

  it('calls a Bearer header without one token68 malformed', () => {
    expect(bearerTokenOf('Bearer')).toBe('malformed');
    expect(bearerTokenOf('Bearer a b')).toBe('malformed');
    expect(bearerTokenOf('Bearer "quoted"')).toBe('malformed');
  });
});

describe('hasQueryToken', () => {
  it('finds access_token in the query string only', () => {
    expect(hasQueryToken('/mcp?access_token=x')).toBe(true);
    expect(hasQueryToken('/mcp?a=1&access_token=')).toBe(true);
    expect(hasQueryToken('/mcp?token=x')).toBe(false);
    expect(hasQueryToken('/mcp')).toBe(false);
    expect(hasQueryToken(undefined)).toBe(false);
  });
});

describe('protected-resource metadata URLs (RFC 9728 §3.1)', () => {
  it('inserts the well-known path between the origin and the resource path', () => {
    expect(protectedResourceMetadataUrl('https://mcp.example.com/mcp')).toBe(
      'https://mcp.example.com/.well-known/oauth-protected-resource/mcp',
    );
    expect(protectedResourceMetadataUrl('http://127.0.0.1:3000/api/mcp/')).toBe(
      'http://127.0.0.1:3000/.well-known/oauth-protected-resource/api/mcp',
    );
    expect(protectedResourceMetadataUrl('https://mcp.example.com/')).toBe('https://mcp.example.com/.well-known/oauth-protected-resource');
  });

  it('serves the path-suffixed form and the bare one for a resource with a path', () => {
    expect(protectedResourceMetadataPaths('/mcp')).toEqual([
      '/.well-known/oauth-protected-resource/mcp',
      '/.well-known/oauth-protected-resource',
    ]);
    expect(protectedResourceMetadataPaths('/')).toEqual(['/.well-known/oauth-protected-resource']);
  });
});
