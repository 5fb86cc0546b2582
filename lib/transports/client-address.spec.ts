import type { IncomingMessage } from 'node:http';
import { clientAddressOf } from './client-address.js';

const from = (remoteAddress: string) => ({ socket: { remoteAddress } }) as unknown as IncomingMessage;

describe('clientAddressOf', () => {
  it('counts IPv4 (also IPv4-mapped) by address and IPv6 by its /64', () => {
    expect(clientAddressOf(from('203.0.113.7'))).toBe('203.0.113.7');
    expect(clientAddressOf(from('::ffff:203.0.113.7'))).toBe('203.0.113.7');
    expect(clientAddressOf(from('2001:db8:1:2:aaaa::1'))).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf(from('2001:db8:1:2:bbbb:cccc:dddd:eeee'))).toBe('2001:db8:1:2::/64');
    expect(clientAddressOf(from('2001:db8::1'))).toBe('2001:db8:0:0::/64');
    expect(clientAddressOf(from('::1'))).toBe('0:0:0:0::/64');
    expect(clientAddressOf(from('fe80::1%eth0'))).toBe('fe80:0:0:0::/64');
  });
});
