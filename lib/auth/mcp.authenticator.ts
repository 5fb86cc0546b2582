import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage } from 'node:http';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { MCP_AUTH_OPTIONS, type McpResolvedAuthOptions } from './auth-options.interface.js';
import { lacksRole, missingScopes, type McpAccessRequirement, type McpGrants } from '../access/access-requirement.js';
import { McpAuthUnavailableError } from './auth-unavailable.error.js';
import * as messages from './auth.messages.js';
import { bearerChallenge, bearerTokenOf, hasQueryToken, type McpBearerChallenge } from './bearer-challenge.js';
import { McpInvalidTokenError } from './invalid-token.error.js';
import { loadJose } from './jose.loader.js';
import { McpJwksTokenVerifier } from './jwks-token.verifier.js';
import { McpAccessPolicy, type McpAccessRefusal } from './mcp-access.policy.js';
import { protectedResourceMetadataUrl, type McpProtectedResourceMetadata } from './protected-resource.metadata.js';
import type { McpTokenVerifier } from '../access/token-verifier.interface.js';

/** A request refused before anything of MCP ran: its HTTP status, headers (`WWW-Authenticate`) and the message of its JSON-RPC error. */
export interface McpAuthDenial {
  readonly ok: false;
  readonly status: 400 | 401 | 403 | 503;
  readonly headers: Readonly<Record<string, string>>;
  readonly message: string;
}

/** Who sent a request: its `AuthInfo` (`undefined`: anonymous, where `auth.required` is off), or why it was refused. */
export type McpAuthentication = { readonly ok: true; readonly authInfo: AuthInfo | undefined } | McpAuthDenial;

/** A request allowed to reach what it asked: its caller and what the caller holds. */
export type McpAuthorization = { readonly ok: true; readonly authInfo: AuthInfo | undefined; readonly grants: McpGrants } | McpAuthDenial;

/** Seconds a client waits before retrying a request whose token could not be checked. */
const UNAVAILABLE_RETRY_AFTER_S = 5;
/** At most one log line per this long while token verification stays unavailable. */
const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

/**
 * Knows who sent an HTTP request (`auth`): verifies its bearer token (`auth.jwt`, `auth.verifier`;
 * from the Authorization header only) or takes the caller the app's middleware found
 * (`auth.fromRequest`), and words every refusal as the MCP authorization spec says (401 with
 * `resource_metadata`, `invalid_token`, 403 `insufficient_scope`, 503 when the token cannot
 * be checked: fail closed). The transport calls it for the MCP path; call
 * {@link McpAuthenticator.authorize} from your own routes to check a scope the same way.
 * Tokens are never logged, never put in a message, never sent anywhere.
 */
@Injectable()
export class McpAuthenticator implements OnModuleInit {
  private readonly logger = new Logger('McpAuth');
  private verifier?: McpTokenVerifier;
  private jose?: Awaited<ReturnType<typeof loadJose>>;
  /** Why `jose` could not be loaded here, when it could not. */
  private joseUnavailable?: McpAuthUnavailableError;
  /** The loopback listener's URL, when `auth.resource` is not set. */
  private listeningResource?: string;
  private lastUnavailableLog = 0;

  constructor(
    @Inject(MCP_AUTH_OPTIONS) private readonly options: McpResolvedAuthOptions,
    @Inject(MCP_SERVER_IDENTITY) private readonly server: McpServerIdentity,
    private readonly access: McpAccessPolicy,
  ) {}

  /**
   * Loads `jose` for `auth.jwt` (a clear error when it is not installed). A runtime that cannot
   * load it (Jest in CommonJS mode) boots, says so once, and answers every token with 503.
   */
  async onModuleInit(): Promise<void> {
    if (this.options.mode === 'jwt') {
      this.jose = await loadJose().catch((error: unknown) => {
        if (!(error instanceof McpAuthUnavailableError)) throw error;
        this.joseUnavailable = error;
        this.logger.error(error.message);
        return undefined;
      });
    }
    this.verifier = this.options.verifier;
  }

  /** This server's resource URL (RFC 8707): `auth.resource`, else the loopback listener's; `undefined` before it listens. */
  get resource(): string | undefined {
    return this.options.resource ?? this.listeningResource;
  }

  /** Where clients find the protected-resource metadata; `undefined` when it is not served. */
  get metadataUrl(): string | undefined {
    const { resource } = this;
    return this.options.metadata && resource ? protectedResourceMetadataUrl(resource) : undefined;
  }

  /** Records the URL of the loopback listener, the resource URL when `auth.resource` is not set. */
  listeningAt(resource: string): void {
    this.listeningResource ??= resource;
  }

  /** The protected-resource metadata (RFC 9728) of this server. */
  metadata(): McpProtectedResourceMetadata {
    const { authorizationServers } = this.options;
    return {
      resource: this.resource!,
      ...(authorizationServers.length ? { authorization_servers: [...authorizationServers] } : {}),
      scopes_supported: [...this.access.scopesSupported()],
      bearer_methods_supported: ['header'],
      resource_name: this.server.name,
    };
  }

  /**
   * Who sent `request`, which then carries it as `request.auth`; a refusal for a token that is
   * not valid (or cannot be checked), for a token in the query string, and for no caller at
   * all when one is required. `scopes` are what the request needs (told to a client without a
   * token). An `HttpException` of `auth.fromRequest` is thrown as it is.
   */
  async authenticate(request: IncomingMessage & { auth?: AuthInfo }, scopes: readonly string[] = []): Promise<McpAuthentication> {
    if (this.options.mode === 'request') {
      const { fromRequest } = this.options;
      const authInfo = request.auth ?? (fromRequest ? await fromRequest(request) : undefined);
      request.auth = authInfo;
      return authInfo || !this.options.required ? { ok: true, authInfo } : this.deny(401, messages.tokenMissing(), { scope: scopes });
    }
    if (hasQueryToken(request.url)) {
      return this.deny(400, messages.tokenInQuery(), { error: 'invalid_request', description: messages.tokenInQuery() });
    }
    const token = bearerTokenOf(request.headers.authorization);
    // Whatever the app's middleware put there, the caller is who the token says.
    request.auth = undefined;
    if (token === undefined) {
      return this.options.required ? this.deny(401, messages.tokenMissing(), { scope: scopes }) : { ok: true, authInfo: undefined };
    }
    if (token === 'malformed') {
      return this.invalidToken(messages.notBearer());
    }
    const verified = await this.verify(token);
    if (verified.ok) {
      request.auth = verified.authInfo;
    }
    return verified;
  }

  /**
   * Whether `request` may reach something that requires `required` (an app route of yours:
   * `await authenticator.authorize(req, { scopes: ['workflows:read'] })`): every scope, and one
   * of the roles when given. Answers its caller and grants, or the refusal to answer with (its
   * status, `WWW-Authenticate` and message).
   */
  async authorize(
    request: IncomingMessage & { auth?: AuthInfo },
    required: { scopes?: readonly string[]; roles?: readonly string[] } = {},
  ): Promise<McpAuthorization> {
    const requirement: McpAccessRequirement = { scopes: required.scopes ?? [], roles: required.roles ?? [] };
    const authentication = await this.authenticate(request, requirement.scopes);
    if (!authentication.ok) {
      return authentication;
    }
    const grants = await this.access.grantsOf(authentication.authInfo);
    const missing = missingScopes(requirement, grants);
    if (missing.length > 0) {
      return authentication.authInfo
        ? this.insufficient(requirement.scopes, messages.routeNeedsScopes(missing))
        : this.deny(401, messages.tokenMissing(), { scope: requirement.scopes });
    }
    if (lacksRole(requirement, grants)) {
      return this.deny(403, messages.routeNeedsRole(requirement.roles));
    }
    return { ok: true, authInfo: authentication.authInfo, grants };
  }

  /**
   * The refusal of a call whose caller lacks what it requires: 403 `insufficient_scope` with the
   * scopes to step up to (401 asking for them, for a caller without a token), or a plain 403 for a role.
   */
  refused(refusal: McpAccessRefusal, authInfo: AuthInfo | undefined): McpAuthDenial {
    if (refusal.missingScopes.length === 0) {
      return this.deny(403, refusal.message);
    }
    return authInfo
      ? this.insufficient(refusal.requiredScopes, refusal.message)
      : this.deny(401, messages.tokenMissing(), { scope: refusal.requiredScopes });
  }

  private insufficient(scopes: readonly string[], message: string): McpAuthDenial {
    return this.deny(403, message, { error: 'insufficient_scope', scope: scopes, description: message });
  }

  private async verify(token: string): Promise<McpAuthentication> {
    let authInfo: AuthInfo;
    try {
      authInfo = await this.tokenVerifier().verifyAccessToken(token);
    } catch (error) {
      if (error instanceof McpAuthUnavailableError) {
        this.logUnavailable(error);
        return {
          ok: false,
          status: 503,
          headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) },
          message: messages.verificationUnavailable(),
        };
      }
      return this.invalidToken(isInvalidTokenError(error) ? error.message : messages.tokenInvalid());
    }
    if (typeof authInfo.expiresAt === 'number' && authInfo.expiresAt * 1000 < Date.now() - this.clockToleranceMs()) {
      return this.invalidToken(messages.tokenExpired());
    }
    // A JWT's audience was checked by the verifier (it may be `auth.jwt.audience`, not the resource URL).
    if (this.options.mode === 'verifier' && authInfo.resource && this.resource && authInfo.resource.href !== new URL(this.resource).href) {
      return this.invalidToken(messages.verifiedForOtherResource());
    }
    return { ok: true, authInfo };
  }

  /** The verifier of `auth.jwt` (made once the resource URL, its default audience, is known) or `auth.verifier`. */
  private tokenVerifier(): McpTokenVerifier {
    if (!this.verifier) {
      if (this.joseUnavailable) {
        throw this.joseUnavailable;
      }
      const jwt = this.options.jwt!;
      const audience = jwt.audience ?? this.resource;
      if (audience === undefined) {
        // Never verify without an audience: any token of the issuer would pass. The listener check makes this unreachable.
        throw new Error(messages.resourceRequired('an address without a URL'));
      }
      this.verifier = new McpJwksTokenVerifier(this.jose!, jwt, audience);
    }
    return this.verifier;
  }

  private clockToleranceMs(): number {
    return this.options.jwt?.clockToleranceMs ?? 0;
  }

  private invalidToken(description: string): McpAuthDenial {
    return this.deny(401, description, { error: 'invalid_token', description });
  }

  /** A refusal; with `challenge`, its `WWW-Authenticate` (naming the metadata when it is served). A missing role has none: no token would change it. */
  private deny(status: McpAuthDenial['status'], message: string, challenge?: McpBearerChallenge): McpAuthDenial {
    const headers: Record<string, string> = challenge
      ? { 'WWW-Authenticate': bearerChallenge({ ...challenge, resourceMetadata: this.metadataUrl }) }
      : {};
    return { ok: false, status, headers, message };
  }

  /** One log line per {@link UNAVAILABLE_LOG_INTERVAL_MS} while verification stays unavailable: a JWKS that is down is news once, not per request. */
  private logUnavailable(error: McpAuthUnavailableError): void {
    const now = Date.now();
    if (now - this.lastUnavailableLog >= UNAVAILABLE_LOG_INTERVAL_MS) {
      this.lastUnavailableLog = now;
      this.logger.error(this.options.mode === 'jwt' ? error.message : messages.verifierUnavailable(error.message));
    }
  }
}

/** An error a verifier words for the client: ours, or the SDK's `InvalidTokenError` (`errorCode: 'invalid_token'`). */
function isInvalidTokenError(error: unknown): error is Error {
  return (
    error instanceof McpInvalidTokenError || (error instanceof Error && (error as { errorCode?: unknown }).errorCode === 'invalid_token')
  );
}
