import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the sample's demo verifier attaches to a request, as the SDK's `requireBearerAuth` does (`req.auth`). */
type AuthenticatedRequest = IncomingMessage & { auth?: { token: string; clientId: string; scopes: string[] } };

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

/** The demo verifier as Express-style middleware. */
export function demoBearerAuth(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (match) {
    (req as AuthenticatedRequest).auth = { token: match[1], clientId: match[1], scopes: [] };
  }
  next();
}
