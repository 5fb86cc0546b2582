/**
 * Thrown by a token verifier for a token that is not valid: the request gets HTTP 401 with
 * `WWW-Authenticate: Bearer error="invalid_token"` and this message as `error_description`
 * (so word it for the client, and never put the token in it). Any other error of a verifier
 * is answered the same way with a generic description.
 */
export class McpInvalidTokenError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'McpInvalidTokenError';
  }
}
