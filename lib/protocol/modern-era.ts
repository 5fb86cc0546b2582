import type { IncomingMessage, ServerResponse } from 'node:http';
import { importOptionalPeer } from '../peers/optional-peer.loader.js';

/** The protocol revision that has no sessions, served on the SDK v2 server packages. */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** `params._meta` key under which a 2026-07-28 request states its protocol version. */
const PROTOCOL_VERSION_META_KEY = 'io.modelcontextprotocol/protocolVersion';

/** The optional SDK v2 packages the 2026-07-28 era runs on. */
export type ModernSdk = {
  server: typeof import('@modelcontextprotocol/server');
  node: typeof import('@modelcontextprotocol/node');
};

/** The package names an app installs to serve 2026-07-28 (optional peers). */
export const MODERN_SDK_PACKAGES = ['@modelcontextprotocol/server', '@modelcontextprotocol/node'] as const;

/** Imports the SDK v2 server packages, one after the other: they share module files, and loading them at once trips jest's ESM loader. */
async function importModernSdk(): Promise<ModernSdk> {
  const server = await import('@modelcontextprotocol/server');
  const node = await import('@modelcontextprotocol/node');
  return { server, node };
}

/**
 * The SDK v2 server packages, or `undefined` when the app did not install them.
 *
 * @param importer how to import them; tests pass one that fails.
 * @throws any other failure (a broken install, a runtime that cannot load them) as it is.
 */
export function loadModernSdk(importer: () => Promise<ModernSdk> = importModernSdk): Promise<ModernSdk | undefined> {
  return importOptionalPeer(MODERN_SDK_PACKAGES, importer);
}

/**
 * Whether a request claims the 2026-07-28 era, without parsing anything: a POST outside any
 * session whose `MCP-Protocol-Version` header or `params._meta` envelope names 2026-07-28 or
 * later. Everything else (initialize, session traffic, GET, DELETE, batches) is the 2025 era.
 * The SDK then checks a claimed request in full (envelope, headers, version).
 */
export function claimsModernEra(request: IncomingMessage & { body?: unknown }): boolean {
  if (request.method !== 'POST' || request.headers['mcp-session-id'] !== undefined) {
    return false;
  }
  const header = request.headers['mcp-protocol-version'];
  if (typeof header === 'string' && header >= MODERN_PROTOCOL_VERSION) {
    return true;
  }
  const { body } = request;
  const params = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { params?: unknown }).params : undefined;
  const meta = typeof params === 'object' && params !== null ? (params as { _meta?: Record<string, unknown> })._meta : undefined;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  return typeof version === 'string' && version >= MODERN_PROTOCOL_VERSION;
}

/** Serves one 2026-07-28 request (the body already parsed). */
export type ModernHttpHandler = (request: IncomingMessage, response: ServerResponse, body: unknown) => Promise<void>;
