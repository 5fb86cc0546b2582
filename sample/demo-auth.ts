import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the sample's demo verifier attaches to a request, as the SDK's `requireBearerAuth` does (`req.auth`). */
type AuthenticatedRequest = IncomingMessage & { auth?: { token: string; clientId: string; scopes: string[] } };

/**
 * `SAMPLE_AUTH=optional`: a DEMO bearer verifier, for tests and walk-throughs only. It trusts
 * any `Authorization: Bearer <name>` header and authenticates the request as client `<name>`;
 * requests without the header stay anonymous. A real app verifies tokens (the SDK's
 * `requireBearerAuth`, passport, …) and sets `req.auth` the same way.
 */
export function sampleAuthMode(env: NodeJS.ProcessEnv = process.env): 'optional' | 'off' {
  return env.SAMPLE_AUTH?.trim().toLowerCase() === 'optional' ? 'optional' : 'off';
}

/** The demo verifier as Express-style middleware. */
export function demoBearerAuth(req: IncomingMessage, _res: ServerResponse, next: () => void): void {
  const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
  if (match) {
    (req as AuthenticatedRequest).auth = { token: match[1], clientId: match[1], scopes: [] };
  }
  next();
}
