import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import type { McpConsoleOptions } from '../lib/index.js';

/** The scope a bearer token needs to see the sample's workflow console with `SAMPLE_AUTH=jwt`. */
export const CONSOLE_SCOPE = 'workflows:read';

/**
 * Who may see the sample's workflow console (`/workflows`). With `SAMPLE_AUTH=jwt`, a request
 * whose verified token (`req.auth`, set by the app's authentication) has the scope
 * `workflows:read`: none → 401, without the scope → 403. Otherwise anyone who reaches it: the
 * sample listens on 127.0.0.1 only.
 */
export function sampleConsoleAuthorize(env: NodeJS.ProcessEnv = process.env): NonNullable<McpConsoleOptions['authorize']> {
  if (env.SAMPLE_AUTH?.trim().toLowerCase() !== 'jwt') {
    return () => true;
  }
  return (request) => {
    if (!request.auth) {
      throw new UnauthorizedException(`The workflow console needs a bearer token with scope ${CONSOLE_SCOPE}.`);
    }
    if (!request.auth.scopes.includes(CONSOLE_SCOPE)) {
      throw new ForbiddenException(
        `The workflow console needs scope ${CONSOLE_SCOPE}; this token has: ${request.auth.scopes.join(' ') || 'none'}.`,
      );
    }
    return true;
  };
}
