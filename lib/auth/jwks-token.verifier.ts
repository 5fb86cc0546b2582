import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { McpResolvedJwtOptions } from './jwt-options.interface.js';
import { McpAuthUnavailableError } from './auth-unavailable.error.js';
import * as messages from './auth.messages.js';
import { boundedJwksFetch } from './bounded-jwks.fetch.js';
import { McpInvalidTokenError } from './invalid-token.error.js';
import type { JoseModule } from './jose.loader.js';
import type { McpTokenVerifier } from '../access/token-verifier.interface.js';

/**
 * Verifies bearer JWTs (`auth.jwt`) with `jose`: the signature against the issuer's JWKS
 * (fetched once, kept for `jwksCacheMaxAgeMs`, fetched again for an unknown `kid` once
 * `jwksCooldownMs` passed; a response over `jwksMaxBytes` is not read), an algorithm of the
 * allow-list, `iss`, `aud`, `exp` (required), and `nbf` and `iat` (never later than now) with
 * `clockToleranceMs`. A JWKS that cannot be fetched is
 * {@link McpAuthUnavailableError}; every other failure is {@link McpInvalidTokenError}.
 */
export class McpJwksTokenVerifier implements McpTokenVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    private readonly jose: JoseModule,
    private readonly options: McpResolvedJwtOptions,
    private readonly audience: string | string[],
  ) {
    const jwks = jose.createRemoteJWKSet(new URL(options.jwksUrl), {
      cooldownDuration: options.jwksCooldownMs,
      cacheMaxAge: options.jwksCacheMaxAgeMs,
      timeoutDuration: options.jwksTimeoutMs,
      [jose.customFetch]: boundedJwksFetch(options.jwksMaxBytes),
    });
    this.keys = async (header, token) => {
      try {
        return await jwks(header, token);
      } catch (error) {
        if (error instanceof jose.errors.JWKSNoMatchingKey || error instanceof jose.errors.JWKSMultipleMatchingKeys) {
          throw error;
        }
        throw new McpAuthUnavailableError(messages.jwksUnreachable(options.jwksUrl, reasonOf(error)), { cause: error });
      }
    };
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const { jose, options } = this;
    let payload: JWTPayload;
    try {
      ({ payload } = await jose.jwtVerify(token, this.keys, {
        issuer: options.issuer,
        audience: this.audience,
        algorithms: options.algorithms,
        clockTolerance: options.clockToleranceMs / 1000,
        requiredClaims: ['exp', options.principalClaim],
      }));
    } catch (error) {
      throw error instanceof McpAuthUnavailableError ? error : new McpInvalidTokenError(this.describe(error), { cause: error });
    }
    // jose checks that `iat` is a number, not that it is past: a token from the future is as suspect as one not valid yet.
    if (typeof payload.iat === 'number' && payload.iat * 1000 > Date.now() + options.clockToleranceMs) {
      throw new McpInvalidTokenError(messages.tokenIssuedInFuture());
    }
    const principal = payload[options.principalClaim];
    if (typeof principal !== 'string' || principal === '') {
      throw new McpInvalidTokenError(messages.claimMissing(options.principalClaim));
    }
    const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const resource = audiences.find(
      (aud) => typeof aud === 'string' && (Array.isArray(this.audience) ? this.audience : [this.audience]).includes(aud),
    );
    return {
      token,
      clientId: principal,
      scopes: listClaim(payload[options.scopeClaim] ?? (options.scopeClaim === 'scope' ? payload.scp : undefined)),
      expiresAt: payload.exp,
      resource: resource ? new URL(resource) : undefined,
      extra: {
        claims: payload,
        roles: listClaim(payload[options.rolesClaim]),
        oauthClientId:
          typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : undefined,
      },
    };
  }

  /** The `error_description` of a token jose refused: what was wrong, never the token. */
  private describe(error: unknown): string {
    const { errors } = this.jose;
    if (error instanceof errors.JWTExpired) {
      return messages.tokenExpired();
    }
    if (error instanceof errors.JWTClaimValidationFailed) {
      switch (error.claim) {
        case 'aud':
          return messages.wrongAudience();
        case 'iss':
          return messages.wrongIssuer();
        case 'nbf':
          return messages.tokenNotYetValid();
        default:
          return messages.claimMissing(error.claim);
      }
    }
    if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
      return messages.algorithmRefused();
    }
    if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
      return messages.unknownKey();
    }
    return messages.tokenInvalid();
  }
}

/** A claim holding a list: a JSON array of strings, or one space-separated string. */
function listClaim(value: unknown): string[] {
  if (typeof value === 'string') {
    return value.split(' ').filter(Boolean);
  }
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const text = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && cause.message !== text ? `${text}: ${cause.message}` : text;
}
