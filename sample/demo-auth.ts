import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage } from 'node:http';

/**
 * How the sample knows its callers, from `SAMPLE_AUTH`. `optional`: a DEMO bearer verifier,
 * for tests and walk-throughs only. It trusts any `Authorization: Bearer <name>` header and
 * authenticates the request as client `<name>`; requests without the header stay anonymous.
 * `jwt`: bearer JWTs verified against an issuer's JWKS, as a real app does (see `sample-auth.ts`).
 */
export function sampleAuthMode(env: NodeJS.ProcessEnv = process.env): 'optional' | 'jwt' | 'off' {
  const mode = env.SAMPLE_AUTH?.trim().toLowerCase();
  return mode === 'optional' || mode === 'jwt' ? mode : 'off';
}

/**
 * The demo verifier as `auth.fromRequest`: the caller `<name>` of `Authorization: Bearer <name>`,
 * anonymous without the header; `Bearer <name>;<scope>;<scope>` gives the caller those scopes
 * (`Bearer carol;payments:approve` may approve refunds), and an item `org=<team>` the claim `org`
 * a JWT would carry (`Bearer carol;org=acme;payments:approve` approves acme's refunds). The
 * module runs it on the MCP path of either adapter, which the sample serves ahead of the
 * framework (`transports.http.direct`), where no middleware runs.
 */
export function demoBearer(req: IncomingMessage): AuthInfo | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (!match) {
    return undefined;
  }
  const [clientId, ...items] = match[1].split(';');
  const org = items.find((item) => item.startsWith('org='))?.slice('org='.length);
  const scopes = items.filter((item) => item && !item.includes('='));
  return { token: match[1], clientId, scopes, ...(org ? { extra: { claims: { org } } } : {}) };
}
