import type { IncomingMessage } from 'node:http';
import type { McpHttpTransportOptions } from './http-transport-options.interface.js';
import { isLoopbackAddress } from './client-address.js';
import * as messages from './transports.messages.js';

const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

// A host as the Host header and an origin spell it: a DNS name or IPv4 address, or an IPv6 address in brackets.
const NAME = /^[a-z0-9.-]+$/i;
const BRACKETED = /^\[[0-9a-f:.]+\]$/i;
const PORT = /^\d{0,5}$/;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** A host and port as an authority spells them, the host in lower case. */
interface Authority {
  hostname: string;
  port?: number;
}

/** The ports an Origin means when it names none. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * The host and port of `host[:port]`, without parsing a URL; `undefined` for anything else
 * (user info, a path, stray characters), which is refused rather than guessed at.
 */
function authorityOf(authority: string): Authority | undefined {
  const close = authority.startsWith('[') ? authority.indexOf(']') + 1 : 0;
  const colon = authority.indexOf(':', close);
  const host = colon === -1 ? authority : authority.slice(0, colon);
  const port = colon === -1 ? '' : authority.slice(colon + 1);
  if (!PORT.test(port) || !(close ? BRACKETED : NAME).test(host)) {
    return undefined;
  }
  return { hostname: host.toLowerCase(), port: port === '' ? undefined : Number(port) };
}

/** The host and port of an Origin (the port its scheme means when it names none), and its scheme's default port. */
interface OriginAuthority extends Authority {
  defaultPort?: number;
}

/** The host and port of an Origin header (`scheme://host[:port]`). */
function originAuthorityOf(origin: string): OriginAuthority | undefined {
  const scheme = SCHEME.exec(origin);
  const authority = scheme ? authorityOf(origin.slice(scheme[0].length)) : undefined;
  if (!authority) {
    return undefined;
  }
  const defaultPort = DEFAULT_PORTS[scheme![0].slice(0, -2).toLowerCase()];
  return { hostname: authority.hostname, port: authority.port ?? defaultPort, defaultPort };
}

/**
 * Protection against DNS rebinding (MCP transport spec): the Host header, and the Origin
 * header when present, must name this server. Without configured lists, requests that reach
 * the server on a loopback address must use a loopback name, and requests that reach it on
 * any other address are refused (the server should not have started: see
 * {@link requireAllowedHosts}). Without `allowedOrigins`, an Origin must be the Host the
 * request names (host and port), or, on a loopback listener, a loopback name on the port the
 * request reached: a page served by another program on this machine (another port) is not
 * this server. Returns the reason to refuse, or `undefined` to accept.
 */
export function rejectHostOrOrigin(request: IncomingMessage, options: McpHttpTransportOptions): string | undefined {
  const loopback = isLoopbackAddress(request.socket.localAddress);
  const host = request.headers.host;
  if (!options.allowedHosts && !loopback) {
    return messages.allowedHostsMissing(host);
  }
  const allowedHosts = options.allowedHosts ?? LOOPBACK_HOSTNAMES;
  const target = host ? authorityOf(host) : undefined;
  if (!target || !allowedHosts.includes(target.hostname)) {
    return messages.hostRejected(host);
  }
  const origin = request.headers.origin;
  if (origin === undefined) {
    return undefined;
  }
  if (options.allowedOrigins) {
    return options.allowedOrigins.includes(origin) ? undefined : messages.originRejected(origin);
  }
  const from = originAuthorityOf(origin);
  if (!from) {
    return messages.originRejected(origin);
  }
  // A Host without a port names the default port of the scheme the client used.
  const sameHost = from.hostname === target.hostname && from.port === (target.port ?? from.defaultPort);
  const ownLoopback = loopback && LOOPBACK_HOSTNAMES.includes(from.hostname) && from.port === request.socket.localPort;
  return sameHost || ownLoopback ? undefined : messages.originRejected(origin);
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
