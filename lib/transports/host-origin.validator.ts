import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { McpHttpTransportOptions } from '../mcp-module-options.interface.js';
import * as messages from './transports.messages.js';

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) {
    return false;
  }
  const plain = address.replace(/^::ffff:/, '');
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

function hostnameOf(value: string, withScheme: boolean): string | undefined {
  try {
    return new URL(withScheme ? value : `http://${value}`).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Protection against DNS rebinding (MCP transport spec): the Host header, and the Origin
 * header when present, must name this server. Without configured lists, requests that reach
 * the server on a loopback address must use a loopback name. Returns the reason to refuse,
 * or `undefined` to accept.
 */
export function rejectHostOrOrigin(request: IncomingMessage, options: McpHttpTransportOptions): string | undefined {
  const loopback = isLoopbackAddress(request.socket.localAddress);
  const allowedHosts = options.allowedHosts ?? (loopback ? LOOPBACK_HOSTNAMES : undefined);
  const host = request.headers.host;
  if (allowedHosts) {
    const hostname = host ? hostnameOf(host, false) : undefined;
    if (!hostname || !allowedHosts.includes(hostname)) {
      return messages.hostRejected(host);
    }
  }
  const origin = request.headers.origin;
  if (origin === undefined) {
    return undefined;
  }
  if (options.allowedOrigins) {
    return options.allowedOrigins.includes(origin) ? undefined : messages.originRejected(origin);
  }
  const originHost = hostnameOf(origin, true);
  const sameHost = originHost !== undefined && host !== undefined && originHost === hostnameOf(host, false);
  const loopbackOrigin = loopback && originHost !== undefined && LOOPBACK_HOSTNAMES.includes(originHost);
  return sameHost || loopbackOrigin ? undefined : messages.originRejected(origin);
}
