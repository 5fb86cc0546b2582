import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

/** One signing key of a {@link TestIssuer}. */
interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

/** What {@link TestIssuer.sign} puts in a token besides its claims. */
export interface TestTokenOptions {
  /** `aud`. */
  audience: string | string[];
  /** `exp`, seconds from now (negative: expired). @default 600 */
  expiresIn?: number;
  /** `nbf`, seconds from now. */
  notBefore?: number;
  /** `iat`, seconds from now. @default 0 */
  issuedAt?: number;
  /** Another issuer than this one's. */
  issuer?: string;
  /** Sign with a key the JWKS does not publish (yet). */
  key?: SigningKey;
}

/** An authorization code the tiny authorization server handed out, waiting for its token request. */
interface PendingCode {
  challenge: string;
  scope: string;
  resource: string | undefined;
  redirectUri: string;
}

/**
 * A real OAuth issuer on a loopback port, for tests: RS256 keys made with jose, its JWKS at
 * `/jwks` (rotatable, or made to fail), tokens signed with them, and a tiny authorization
 * server (metadata, dynamic client registration, the authorization-code flow with PKCE)
 * that grants whatever scope is asked for, as the subject `subject`.
 */
export class TestIssuer {
  /** How many times the JWKS was fetched. */
  jwksFetches = 0;
  /**
   * `'ok'`, or how the JWKS fails: HTTP 500, the connection dropped, or an endless answer
   * (`'huge'`: 64 KiB chunks for as long as the client reads, without Content-Length;
   * `'declared'`: a Content-Length of 60 MB).
   */
  jwksMode: 'ok' | 'error' | 'drop' | 'huge' | 'declared' = 'ok';
  /** Bytes of the last `'huge'` answer written before the client stopped reading. */
  hugeBytesWritten = 0;
  /** The subject of the tokens the authorization-code flow issues. */
  subject = 'alice';
  /** Scopes requested in the authorization-code flow, one entry per authorization. */
  readonly authorizations: string[] = [];
  /** The scopes the authorization-code flow grants of those asked for (`undefined`: all of them), as a user's consent would. */
  grantable?: Set<string>;
  private keys: SigningKey[] = [];
  private readonly codes = new Map<string, PendingCode>();

  private constructor(
    private readonly server: Server,
    readonly issuer: string,
  ) {}

  /** Starts an issuer on an ephemeral loopback port with one key. */
  static async start(): Promise<TestIssuer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = new TestIssuer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    issuer.keys.push(await TestIssuer.newKey());
    server.on('request', (req: IncomingMessage, res: ServerResponse) => void issuer.serve(req, res));
    return issuer;
  }

  get jwksUrl(): string {
    return `${this.issuer}/jwks`;
  }

  /** The key tokens are signed with by default (the newest published one). */
  get currentKey(): SigningKey {
    return this.keys[this.keys.length - 1];
  }

  /** A new RS256 key pair with a fresh `kid`, not published. */
  static async newKey(): Promise<SigningKey> {
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const kid = randomBytes(8).toString('hex');
    return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' } };
  }

  /** Publishes `key` (a new one by default) and retires the others: the issuer rotated its keys. */
  async rotate(key?: SigningKey): Promise<SigningKey> {
    const next = key ?? (await TestIssuer.newKey());
    this.keys = [next];
    return next;
  }

  /** A signed access token with `claims` (`sub`, `scope`, ...). */
  async sign(claims: Record<string, unknown>, options: TestTokenOptions): Promise<string> {
    const key = options.key ?? this.currentKey;
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'at+jwt' })
      .setIssuer(options.issuer ?? this.issuer)
      .setAudience(options.audience)
      .setIssuedAt(now + (options.issuedAt ?? 0))
      .setExpirationTime(now + (options.expiresIn ?? 600));
    if (options.notBefore !== undefined) {
      jwt.setNotBefore(now + options.notBefore);
    }
    return jwt.sign(key.privateKey);
  }

  /** An unsigned token (`alg: none`) with the claims a valid one would have. */
  unsigned(claims: Record<string, unknown>, audience: string): string {
    const now = Math.floor(Date.now() / 1000);
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    return `${part({ alg: 'none', typ: 'JWT' })}.${part({ iss: this.issuer, aud: audience, iat: now, exp: now + 600, ...claims })}.`;
  }

  /** The classic key-confusion forgery: an HS256 token whose HMAC secret is the issuer's public key (PEM). */
  async hs256WithPublicKey(claims: Record<string, unknown>, audience: string): Promise<string> {
    const { createPublicKey } = await import('node:crypto');
    const pem = createPublicKey({ key: this.currentKey.publicJwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: this.currentKey.kid })
      .setIssuer(this.issuer)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode(pem.toString()));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.issuer);
    switch (url.pathname) {
      case '/jwks':
        return this.serveJwks(res);
      case '/.well-known/oauth-authorization-server':
        return json(res, 200, {
          issuer: this.issuer,
          authorization_endpoint: `${this.issuer}/authorize`,
          token_endpoint: `${this.issuer}/token`,
          registration_endpoint: `${this.issuer}/register`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
        });
      case '/register': {
        const metadata = JSON.parse(await bodyOf(req)) as Record<string, unknown>;
        return json(res, 201, { ...metadata, client_id: `client-${randomBytes(4).toString('hex')}`, token_endpoint_auth_method: 'none' });
      }
      case '/authorize':
        return this.authorize(url, res);
      case '/token':
        return this.token(new URLSearchParams(await bodyOf(req)), res);
      default:
        return json(res, 404, { error: 'not_found' });
    }
  }

  private serveJwks(res: ServerResponse): void {
    this.jwksFetches += 1;
    if (this.jwksMode === 'drop') {
      res.socket?.destroy();
      return;
    }
    if (this.jwksMode === 'error') {
      return json(res, 500, { error: 'down' });
    }
    if (this.jwksMode === 'huge' || this.jwksMode === 'declared') {
      return this.serveEndlessJwks(res, this.jwksMode === 'declared');
    }
    json(res, 200, { keys: this.keys.map((key) => key.publicJwk) });
  }

  /** A JWKS that never ends: its keys, then padding in 64 KiB chunks until the client stops reading (or 100 MB). */
  private serveEndlessJwks(res: ServerResponse, declared: boolean): void {
    res.writeHead(200, { 'Content-Type': 'application/json', ...(declared ? { 'Content-Length': String(60 * 1024 * 1024) } : {}) });
    const head = `{"keys":${JSON.stringify(this.keys.map((key) => key.publicJwk))},"padding":"`;
    const chunk = 'x'.repeat(64 * 1024);
    this.hugeBytesWritten = head.length;
    res.write(head);
    const pump = () => {
      while (!res.destroyed && this.hugeBytesWritten < 100 * 1024 * 1024) {
        this.hugeBytesWritten += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    res.on('error', () => undefined);
    pump();
  }

  /** Grants at once whatever the client asks for: redirects back with a code. */
  private authorize(url: URL, res: ServerResponse): void {
    const redirectUri = url.searchParams.get('redirect_uri')!;
    const code = randomBytes(12).toString('hex');
    const requested = url.searchParams.get('scope') ?? '';
    this.authorizations.push(requested);
    const scope = requested
      .split(' ')
      .filter((asked) => asked && (!this.grantable || this.grantable.has(asked)))
      .join(' ');
    this.codes.set(code, {
      challenge: url.searchParams.get('code_challenge') ?? '',
      scope,
      resource: url.searchParams.get('resource') ?? undefined,
      redirectUri,
    });
    const back = new URL(redirectUri);
    back.searchParams.set('code', code);
    const state = url.searchParams.get('state');
    if (state) back.searchParams.set('state', state);
    res.writeHead(302, { Location: back.href }).end();
  }

  /** Exchanges a code (PKCE checked) for an access token whose audience is the `resource` the client asked for. */
  private async token(form: URLSearchParams, res: ServerResponse): Promise<void> {
    const pending = this.codes.get(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    if (!pending || createHash('sha256').update(verifier).digest('base64url') !== pending.challenge) {
      return json(res, 400, { error: 'invalid_grant' });
    }
    this.codes.delete(form.get('code')!);
    const resource = form.get('resource') ?? pending.resource;
    const token = await this.sign(
      { sub: this.subject, scope: pending.scope, client_id: form.get('client_id') },
      { audience: resource ?? this.issuer },
    );
    json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 600, scope: pending.scope });
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

function bodyOf(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}
