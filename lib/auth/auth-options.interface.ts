import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage } from 'node:http';
import type { McpTokenVerifier } from '../access/token-verifier.interface.js';
import type { McpJwtOptions, McpResolvedJwtOptions } from './jwt-options.interface.js';

/**
 * Who may call (`McpModuleOptions.auth`): how the caller of an HTTP request is known, and what
 * the server says about it (the MCP authorization spec, 2025-11-25). Set exactly one of `jwt`
 * (bearer JWTs verified against the issuer's JWKS), `verifier` (opaque tokens, introspection)
 * or `fromRequest` (the app's own Passport strategy or middleware); see docs/auth.md.
 */
export interface McpAuthOptions {
  /** Verify bearer JWTs against the issuer's JWKS (needs the optional peer `jose`). */
  jwt?: McpJwtOptions;
  /** Verify bearer tokens with your own verifier (the SDK's `OAuthTokenVerifier` fits). */
  verifier?: McpTokenVerifier;
  /**
   * The caller of a request your own middleware (Passport, a guard's strategy run as
   * middleware) already authenticated: map `req.user` to the `AuthInfo` whose `clientId` is
   * the principal and `scopes` its scopes; `undefined` for an anonymous caller. Called when no
   * middleware set `req.auth` (which is then taken as it is). Throw an `HttpException` to
   * answer with its status and message.
   * @default `req.auth`, as the SDK's `requireBearerAuth` or your middleware set it
   */
  fromRequest?: (request: IncomingMessage & { user?: unknown; auth?: AuthInfo }) => AuthInfo | undefined | Promise<AuthInfo | undefined>;
  /**
   * Refuse a request without a valid token with HTTP 401 and a `WWW-Authenticate` challenge
   * naming the metadata; `false` lets anonymous callers in (they see and call only what
   * requires nothing).
   * @default true with `jwt` or `verifier`, else false
   */
  required?: boolean;
  /**
   * This server's resource URL (RFC 8707, RFC 9728 `resource`): the audience tokens must name,
   * and where the metadata says the resource is, e.g. `'https://mcp.example.com/mcp'`.
   * Required when the server is reached beyond loopback or behind a proxy.
   * @default `http://<loopback address>:<port><transports.http.path>` of the listener (`app.listen`
   *   rejects when it listens beyond loopback without it)
   */
  resource?: string;
  /**
   * The authorization servers that issue tokens for this resource (RFC 9728
   * `authorization_servers`). Required with `verifier`.
   * @default `[jwt.issuer]`
   */
  authorizationServers?: string[];
  /**
   * Scopes the metadata lists (`scopes_supported`) besides those a `@McpRequire` names, e.g.
   * the scopes of your own routes (`defineAccess(...).scopes`).
   * @default []
   */
  scopesSupported?: readonly string[];
  /**
   * The roles of a caller, for `@McpRequire({ roles })`: from a claim, or your own lookup.
   * Called once per request; a hook that throws gives no roles (logged).
   * @default `authInfo.extra.roles` when it is a list of strings (`auth.jwt` puts the `roles` claim there), else none
   */
  roles?: (authInfo: AuthInfo) => readonly string[] | Promise<readonly string[]>;
}

/**
 * `auth` with every default filled in: how a request's caller is known (`mode`), whether one
 * is required, what the protected-resource metadata says.
 */
export interface McpResolvedAuthOptions {
  /** `'jwt'`: bearer JWTs verified here; `'verifier'`: bearer tokens verified by the app's verifier; `'request'`: the caller the app's middleware found. */
  mode: 'jwt' | 'verifier' | 'request';
  jwt?: McpResolvedJwtOptions;
  verifier?: McpTokenVerifier;
  /** In `'request'` mode: `auth.fromRequest` (without it, `req.auth` as it is). */
  fromRequest?: McpAuthOptions['fromRequest'];
  required: boolean;
  /** `undefined`: the loopback listener's own URL. */
  resource?: string;
  authorizationServers: readonly string[];
  scopesSupported: readonly string[];
  roles: NonNullable<McpAuthOptions['roles']>;
  /** Whether `/.well-known/oauth-protected-resource` is served (bearer tokens verified here, or authorization servers named). */
  metadata: boolean;
}

/** Injection token of the {@link McpResolvedAuthOptions}. */
export const MCP_AUTH_OPTIONS = Symbol.for('nestjs-mcp-fsm:McpResolvedAuthOptions');
