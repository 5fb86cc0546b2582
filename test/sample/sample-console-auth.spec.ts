import { ForbiddenException, UnauthorizedException } from '@nestjs/common';
import type { McpConsoleRequest } from '../../lib/index.js';
import { CONSOLE_SCOPE, sampleConsoleAuthorize } from '../../sample/console-auth.js';

const request = (auth?: { clientId: string; scopes: string[] }) =>
  ({ auth: auth && { token: 't', ...auth }, socket: { remoteAddress: '127.0.0.1' } }) as unknown as McpConsoleRequest;

describe("the sample console's authorize", () => {
  it('with SAMPLE_AUTH=jwt: no token → 401, a token without workflows:read → 403, with it → allowed', () => {
    const authorize = sampleConsoleAuthorize({ SAMPLE_AUTH: 'jwt' });
    expect(() => authorize(request())).toThrow(UnauthorizedException);
    expect(() => authorize(request({ clientId: 'ops', scopes: ['payments:refund'] }))).toThrow(ForbiddenException);
    expect(() => authorize(request({ clientId: 'ops', scopes: ['payments:refund'] }))).toThrow(CONSOLE_SCOPE);
    expect(authorize(request({ clientId: 'ops', scopes: ['payments:refund', CONSOLE_SCOPE] }))).toBe(true);
  });

  it.each([{}, { SAMPLE_AUTH: 'optional' }])('open on the loopback bind otherwise (%j)', (env) => {
    expect(sampleConsoleAuthorize(env)(request())).toBe(true);
  });
});
