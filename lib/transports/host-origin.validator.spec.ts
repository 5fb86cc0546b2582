import fc from 'fast-check';
import type { IncomingMessage } from 'node:http';
import { rejectHostOrOrigin } from './host-origin.validator.js';

const onLoopback = (headers: Record<string, string>) =>
  ({ socket: { localAddress: '127.0.0.1' }, headers }) as unknown as IncomingMessage;
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

  it('checks the Origin against the host or the loopback names, or the configured list', () => {
    expect(accepts({ host: 'localhost:3000', origin: 'http://localhost:3000' })).toBe(true);
    expect(accepts({ host: 'localhost:3000', origin: 'http://127.0.0.1:5173' })).toBe(true);
    expect(accepts({ host: 'localhost:3000', origin: 'http://evil.example' })).toBe(false);
    expect(accepts({ host: 'localhost:3000', origin: 'http://localhost@evil.example' })).toBe(false);
    expect(accepts({ host: 'localhost:3000', origin: 'null' })).toBe(false);
    expect(accepts({ host: 'app.example', origin: 'https://app.example' }, { allowedHosts: ['app.example'] })).toBe(true);
    expect(accepts({ host: 'app.example', origin: 'https://app.example' }, { allowedHosts: ['app.example'], allowedOrigins: ['https://other.example'] })).toBe(false);
  });

  it('never accepts a Host that a URL parser would read as another host', () => {
    const allowedHosts = ['localhost', '127.0.0.1', 'app.example'];
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-zA-Z0-9.:@[\]#/?%\\-]{0,24}$/),
        (host) => {
          if (!accepts({ host }, { allowedHosts })) {
            return true;
          }
          return allowedHosts.includes(new URL(`http://${host}`).hostname);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
