import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { rejectHostOrOrigin, requireAllowedHosts } from './host-origin.validator.js';

const onLoopback = (headers: Record<string, string>) =>
  ({ socket: { localAddress: '127.0.0.1', localPort: 3000 }, headers }) as unknown as IncomingMessage;
const accepts = (headers: Record<string, string>, options = {}) => rejectHostOrOrigin(onLoopback(headers), options) === undefined;

describe('rejectHostOrOrigin', () => {
  it('accepts loopback names with any port, in any case', () => {
    for (const host of ['localhost', 'localhost:3000', 'LOCALHOST:80', '127.0.0.1:8080', '[::1]:3000', '[::1]']) {
      expect([host, accepts({ host })]).toEqual([host, true]);
    }
  });

  it('refuses other names, and anything that is not plainly host[:port]', () => {
    const refused = [
      'evil.example',
      'localhost.evil.example',
      'localhost@evil.example',
      'evil.example#localhost',
      'localhost/evil',
      'localhost:80:80',
      'localhost:http',
      '[::1',
      '127.0.0.1 ',
      '',
    ];
    for (const host of refused) {
      expect([host, accepts({ host })]).toEqual([host, false]);
    }
    expect(accepts({})).toBe(false);
  });

  it('checks the Origin against the host and port, the loopback names on the port the request reached, or the configured list', () => {
    expect(accepts({ host: 'localhost:3000', origin: 'http://localhost:3000' })).toBe(true);
    expect(accepts({ host: 'localhost:3000', origin: 'http://127.0.0.1:3000' })).toBe(true);
    expect(accepts({ host: '127.0.0.1:3000', origin: 'http://[::1]:3000' })).toBe(true);
    expect(accepts({ host: 'localhost:3000', origin: 'http://127.0.0.1:5173' })).toBe(false);
    expect(accepts({ host: 'localhost:3000', origin: 'http://localhost:5173' })).toBe(false);
    expect(accepts({ host: 'localhost:3000', origin: 'http://localhost' })).toBe(false);
    expect(accepts({ host: 'localhost:3000', origin: 'http://127.0.0.1:5173' }, { allowedOrigins: ['http://127.0.0.1:5173'] })).toBe(true);
    expect(accepts({ host: 'localhost:3000', origin: 'http://evil.example' })).toBe(false);
    expect(accepts({ host: 'localhost:3000', origin: 'http://localhost@evil.example' })).toBe(false);
    expect(accepts({ host: 'localhost:3000', origin: 'null' })).toBe(false);
    expect(accepts({ host: 'app.example', origin: 'https://app.example' }, { allowedHosts: ['app.example'] })).toBe(true);
    expect(accepts({ host: 'app.example', origin: 'https://app.example:443' }, { allowedHosts: ['app.example'] })).toBe(true);
    expect(accepts({ host: 'app.example', origin: 'https://app.example:8443' }, { allowedHosts: ['app.example'] })).toBe(false);
    expect(accepts({ host: 'app.example:8443', origin: 'https://app.example:8443' }, { allowedHosts: ['app.example'] })).toBe(true);
    expect(
      accepts(
        { host: 'app.example', origin: 'https://app.example' },
        { allowedHosts: ['app.example'], allowedOrigins: ['https://other.example'] },
      ),
    ).toBe(false);
  });

  it('never accepts a Host that a URL parser would read as another host', () => {
    const allowedHosts = ['localhost', '127.0.0.1', 'app.example'];
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9.:@[\]#/?%\\-]{0,24}$/), (host) => {
        if (!accepts({ host }, { allowedHosts })) {
          return true;
        }
        return allowedHosts.includes(new URL(`http://${host}`).hostname);
      }),
      { numRuns: 2000 },
    );
  });

  it('refuses every request that reached a listener beyond loopback when allowedHosts is not set', () => {
    const onLan = (localAddress: string, host: string) => ({ socket: { localAddress }, headers: { host } }) as unknown as IncomingMessage;
    for (const address of ['192.168.1.20', '10.0.0.5', '::ffff:192.168.1.20', 'fe80::1']) {
      expect(rejectHostOrOrigin(onLan(address, 'localhost'), {})).toBe(
        'Forbidden: Host header "localhost" is not checked for this MCP server, which is reached beyond loopback without transports.http.allowedHosts (DNS rebinding protection); set it, e.g. transports.http.allowedHosts: [\'mcp.example.com\'].',
      );
      expect(rejectHostOrOrigin(onLan(address, 'mcp.example.com'), { allowedHosts: ['mcp.example.com'] })).toBeUndefined();
    }
  });
});

describe('requireAllowedHosts', () => {
  it('requires allowedHosts on a listener beyond loopback, and only there', () => {
    for (const address of ['0.0.0.0', '::', '192.168.1.20', 'fe80::1']) {
      expect(requireAllowedHosts({ address }, {})).toBe(
        `McpModule: the HTTP server listens on ${address}, beyond loopback, so the Host header must be checked against the names clients use (DNS rebinding protection); set transports.http.allowedHosts, e.g. transports.http.allowedHosts: ['mcp.example.com'], or listen on 127.0.0.1.`,
      );
      expect(requireAllowedHosts({ address }, { allowedHosts: ['mcp.example.com'] })).toBeUndefined();
    }
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(requireAllowedHosts({ address }, {})).toBeUndefined();
    }
    expect(requireAllowedHosts('/tmp/mcp.sock', {})).toBeUndefined();
    expect(requireAllowedHosts(null, {})).toBeUndefined();
  });
});
