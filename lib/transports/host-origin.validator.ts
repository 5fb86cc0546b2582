import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { McpHttpTransportOptions } from '../mcp-module-options.interface.js';
import * as messages from './transports.messages.js';

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** Whether `address` (as a socket reports it) is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) {
    return false;
  }
  const plain = address.replace(/^::ffff:/, '');
  return plain === '::1' || (isIP(plain) === 4 && plain.startsWith('127.'));
}

// A host as the Host header and an origin spell it: a DNS name or IPv4 address, or an IPv6 address in brackets.
const NAME = /^[a-z0-9.-]+$/i;
const BRACKETED = /^\[[0-9a-f:.]+\]$/i;
const PORT = /^\d{0,5}$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The lower-case host of `host[:port]`, without parsing a URL; `undefined` for anything else
 * (user info, a path, stray characters), which is refused rather than guessed at.
 */
function hostnameOf(authority: string): string | undefined {
  const close = authority.startsWith('[') ? authority.indexOf(']') + 1 : 0;
  const colon = authority.indexOf(':', close);
  const host = colon === -1 ? authority : authority.slice(0, colon);
  if (colon !== -1 && !PORT.test(authority.slice(colon + 1))) {
    return undefined;
  }
  return (close ? BRACKETED : NAME).test(host) ? host.toLowerCase() : undefined;
}

/** The host of an Origin header (`scheme://host[:port]`). */
function originHostnameOf(origin: string): string | undefined {
  const scheme = SCHEME.exec(origin);
  return scheme ? hostnameOf(origin.slice(scheme[0].length)) : undefined;
}

/**
 * Protection against DNS rebinding (MCP transport spec): the Host header, and the Origin
 * header when present, must name this server. Without configured lists, requests that reach
 * the server on a loopback address must use a loopback name, and requests that reach it on
 * any other address are refused (the server should not have started: see
 * {@link requireAllowedHosts}). Returns the reason to refuse, or `undefined` to accept.
 */
export function rejectHostOrOrigin(request: IncomingMessage, options: McpHttpTransportOptions): string | undefined {
  const loopback = isLoopbackAddress(request.socket.localAddress);
  const host = request.headers.host;
  if (!options.allowedHosts && !loopback) {
    return messages.allowedHostsMissing(host);
  }
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTNAMES;
  const hostname = host ? hostnameOf(host) : undefined;
  if (!hostname || !allowedHosts.includes(hostname)) {
    return messages.hostRejected(host);
  }
  const origin = request.headers.origin;
  if (origin === undefined) {
    return undefined;
  }
  if (options.allowedOrigins) {
    return options.allowedOrigins.includes(origin) ? undefined : messages.originRejected(origin);
  }
  const originHost = originHostnameOf(origin);
  const sameHost = originHost !== undefined && host !== undefined && originHost === hostnameOf(host);
  const loopbackOrigin = loopback && originHost !== undefined && LOOPBACK_HOSTNAMES.includes(originHost);
  return sameHost || loopbackOrigin ? undefined : messages.originRejected(origin);
}

/**
 * The startup error for a server that listens at `address` (`server.address()`): beyond
 * loopback (`0.0.0.0`, `::`, a LAN address), `allowedHosts` must say which names clients use.
 * `undefined` when the listener is fine (loopback, a Unix socket or pipe, or `allowedHosts` set).
 */
export function requireAllowedHosts(address: string | { address: string } | null, options: McpHttpTransportOptions): string | undefined {
  if (options.allowedHosts || address === null || typeof address === 'string' || isLoopbackAddress(address.address)) {
    return undefined;
  }
  return messages.allowedHostsRequired(address.address);
}
