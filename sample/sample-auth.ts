import { defineAccess, McpRequire, type McpAuthOptions, type McpConsoleOptions } from '../lib/index.js';
import { demoBearer, sampleAuthMode } from './demo-auth.js';

/**
 * The sample's scopes: `payment.refund` needs `payments:refund`, `invoice.approve` `invoices:approve`, the console
 * `workflows:read` (`workflows:admin` to see every org's instances, `workflows:end` and `workflows:send` for an
 * operator's actions); `payment.approve_refund` and `payment.reject_refund` need `payments:approve` in every auth mode
 * (and so does deciding in the console's approvals inbox).
 */
export const sampleAccess = defineAccess({
  scopes: [
    'payments:refund',
    'payments:approve',
    'invoices:approve',
    'workflows:read',
    'workflows:admin',
    'workflows:end',
    'workflows:send',
  ],
});

type SampleScope = (typeof sampleAccess.scopes)[number];

/**
 * `@McpRequire(sampleAccess, { scopes })` with `SAMPLE_AUTH=jwt`. The sample's other modes have
 * no verified tokens (the demo bearer, anonymous callers, stdio) and keep serving every tool,
 * as they did before scopes existed: an app that always verifies tokens writes `@McpRequire` itself.
 */
export function RequireScopesWithJwt(...scopes: SampleScope[]): MethodDecorator {
  return sampleAuthMode() === 'jwt' ? McpRequire(sampleAccess, { scopes }) : () => undefined;
}

/**
 * The `auth` options of `SAMPLE_AUTH=jwt`: tokens of `SAMPLE_JWT_ISSUER`, signed with a key of
 * `SAMPLE_JWT_JWKS_URL`, for the audience `SAMPLE_JWT_AUDIENCE` (default: the sample's own
 * resource URL, `http://127.0.0.1:<port>/mcp` on the port it listens on); the principal is
 * `sub`, the scopes the space-separated `scope` claim. With `SAMPLE_AUTH=optional`, the demo
 * bearer verifier; `undefined` otherwise.
 */
export function sampleAuthOptions(env: NodeJS.ProcessEnv = process.env): McpAuthOptions | undefined {
  const mode = sampleAuthMode(env);
  if (mode === 'optional') {
    return { fromRequest: demoBearer };
  }
  if (mode !== 'jwt') {
    return undefined;
  }
  const issuer = env.SAMPLE_JWT_ISSUER?.trim();
  const jwksUrl = env.SAMPLE_JWT_JWKS_URL?.trim();
  if (!issuer || !jwksUrl) {
    throw new Error(
      'SAMPLE_AUTH=jwt needs SAMPLE_JWT_ISSUER (the issuer, e.g. https://auth.example.com) and SAMPLE_JWT_JWKS_URL (its JWKS).',
    );
  }
  const audience = env.SAMPLE_JWT_AUDIENCE?.trim() || undefined;
  return {
    jwt: { issuer, jwksUrl, audience, principalClaim: 'sub', scopeClaim: 'scope' },
    scopesSupported: sampleAccess.scopes,
  };
}

/**
 * The sample's workflow console at `/workflows`: with `SAMPLE_AUTH=jwt`, for tokens with scope
 * `workflows:read` (no token → 401, without the scope → 403 `insufficient_scope`), each seeing the
 * payments of its org (`workflows:admin`: every payment); a signed-in person with `payments:approve`
 * decides refunds in the approvals inbox, one with `workflows:end` ends a payment, one with
 * `workflows:send` voids an authorized one. Otherwise the console's default, requests from the
 * machine itself (the sample listens on 127.0.0.1 only), which see everything and act on nothing.
 */
export function sampleConsoleOptions(env: NodeJS.ProcessEnv = process.env): McpConsoleOptions {
  return sampleAuthMode(env) === 'jwt'
    ? {
        path: '/workflows',
        scopes: ['workflows:read'],
        adminScope: 'workflows:admin',
        decideScope: 'payments:approve',
        endScope: 'workflows:end',
        sendScope: 'workflows:send',
      }
    : { path: '/workflows' };
}
