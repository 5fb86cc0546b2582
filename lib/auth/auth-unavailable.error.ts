/**
 * Thrown by a token verifier when it cannot tell whether a token is valid (the issuer's JWKS
 * or an introspection endpoint does not answer): the request is refused with HTTP 503 and
 * `Retry-After` (fail closed), and the client keeps its token.
 */
export class McpAuthUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpAuthUnavailableError';
  }
}
