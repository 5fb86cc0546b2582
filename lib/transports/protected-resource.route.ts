import type { Server as HttpServer, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resourceRequired } from '../auth/auth.messages.js';
import type { McpAuthenticator } from '../auth/mcp.authenticator.js';
import { protectedResourceMetadataPaths } from '../auth/protected-resource.metadata.js';
import type { McpResolvedAuthOptions } from '../auth/auth-options.interface.js';
import type { McpResolvedHttpOptions } from '../server/http-options.interface.js';
import { isLoopbackAddress } from './client-address.js';
import { requireAllowedHosts } from './host-origin.validator.js';
import type { McpNodeRequest } from './mcp-body.reader.js';

/** Browser-based clients read the metadata from another origin. */
const METADATA_CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Methods': 'GET, OPTIONS',
  'Access-Control-Allow-Headers': '*',
};

/**
 * Without `auth.resource`, the resource URL (the audience of tokens, what the metadata names)
 * is the listener's own: `http://127.0.0.1:<port><path>` on loopback, recorded with the
 * authenticator once the server listens. Beyond loopback (or on a pipe) nobody can tell the URL
 * clients use: `app.listen` rejects, as it does without `allowedHosts`.
 */
export function resolveResourceOnListen(
  server: HttpServer,
  http: McpResolvedHttpOptions,
  auth: McpResolvedAuthOptions,
  authenticator: McpAuthenticator,
): void {
  if (auth.resource !== undefined || (auth.mode === 'request' && !auth.metadata)) {
    return;
  }
  server.on('listening', () => {
    const address = server.address();
    if (requireAllowedHosts(address, http)) {
      // Refused already for allowedHosts: one error for `app.listen` to reject with.
      return;
    }
    if (address === null || typeof address === 'string' || !isLoopbackAddress(address.address)) {
      const where = address === null || typeof address === 'string' ? String(address) : `${address.address}:${address.port}`;
      server.emit('error', new Error(resourceRequired(where)));
      setImmediate(() => server.close());
      return;
    }
    authenticator.listeningAt(`http://${hostOf(address)}:${address.port}${http.path}`);
  });
}

/** The request paths of the protected-resource metadata: the path-suffixed well-known URL of the resource, and the bare one. */
export function protectedResourcePaths(http: McpResolvedHttpOptions, auth: McpResolvedAuthOptions): string[] {
  return protectedResourceMetadataPaths(auth.resource === undefined ? http.path : new URL(auth.resource).pathname);
}

/** Answers a request on a metadata path: the document to GET (and HEAD), CORS preflights; other methods go to the app. */
export function serveProtectedResourceMetadata(
  authenticator: McpAuthenticator,
  req: McpNodeRequest,
  res: ServerResponse,
  passOn: () => void,
): void {
  if (req.method === 'OPTIONS') {
    res.writeHead(204, METADATA_CORS).end();
  } else if (req.method === 'GET' || req.method === 'HEAD') {
    const body = JSON.stringify(authenticator.metadata());
    res.writeHead(200, { ...METADATA_CORS, 'Content-Type': 'application/json' }).end(req.method === 'GET' ? body : undefined);
  } else {
    passOn();
  }
}

/** The host of a listener's URL: an IPv6 address in brackets. */
function hostOf(address: AddressInfo): string {
  return address.family === 'IPv6' ? `[${address.address}]` : address.address;
}
