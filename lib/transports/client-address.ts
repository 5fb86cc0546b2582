import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/**
 * The address new sessions are counted by: the socket's remote address, an IPv4-mapped
 * IPv6 address as IPv4, and an IPv6 address by its /64 (one host usually holds the whole
 * prefix, so counting single IPv6 addresses would not limit anyone).
 */
export function clientAddressOf(request: IncomingMessage): string {
  const address = (request.socket.remoteAddress ?? '').replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '').replace(/%.*$/, '');
  if (isIP(address) !== 6) {
    return address;
  }
  const [head, tail] = address.split('::');
  const groups = (part: string | undefined) =>
    part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : [];
  const before = groups(head);
  const after = groups(tail);
  const all = [...before, ...Array<string>(Math.max(0, 8 - before.length - after.length)).fill('0'), ...after];
  return `${all
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

/** Whether `address` (as a socket reports it) is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) {
    return false;
  }
  const plain = address.replace(/^::ffff:/, '');
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}
