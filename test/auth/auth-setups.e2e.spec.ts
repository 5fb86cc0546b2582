import { Injectable, type INestApplication } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import jwt from 'jsonwebtoken';
import type { IncomingMessage, ServerResponse } from 'node:http';
import passport from 'passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { McpAuthUnavailableError, McpInvalidTokenError, type McpTokenVerifier } from '../../lib/index.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { scopedBillingModule } from '../fixtures/scoped-billing.app.js';
import { connectBearerClient, INITIALIZE, postJsonRpc, type BearerClient, type SeenResponse } from '../utils/bearer-client.js';
import { listenApp, type HttpAdapterName } from '../utils/test-app.js';
import { TestIssuer } from '../utils/test-issuer.js';

/** A 2026-07-28 SDK v2 client sending `token` on every request, recording each response's status and challenge. */
async function connectModern(url: string, token: string): Promise<{ client: ModernClient; responses: SeenResponse[] }> {
  const responses: SeenResponse[] = [];
  const transport = new ModernTransport(new URL(url), {
    fetch: async (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('Authorization', `Bearer ${token}`);
      const response = await fetch(input, { ...init, headers });
      responses.push({ status: response.status, wwwAuthenticate: response.headers.get('www-authenticate') });
      return response;
    },
  });
  const client = new ModernClient({ name: 'auth-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  return { client, responses };
}

describe.each(['express', 'fastify'] as HttpAdapterName[])('MCP 2026-07-28 with bearer JWTs, on %s', (adapter) => {
  let issuer: TestIssuer;
  let app: INestApplication;
  let resource: string;
  const clients: ModernClient[] = [];

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    app = await listenApp([scopedBillingModule({ auth: { jwt: { issuer: issuer.issuer, jwksUrl: issuer.jwksUrl } } })], { adapter });
    resource = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await app.close();
    await issuer.close();
  });

  const connect = async (sub: string, scope: string) => {
    const connected = await connectModern(resource, await issuer.sign({ sub, scope }, { audience: resource }));
    clients.push(connected.client);
    return connected;
  };

  it('lists by the caller’s scopes, cached privately, and refuses a call without the scope with 403 insufficient_scope', async () => {
    const clerk = await connect('alice', 'invoices:approve');
    const listed = await clerk.client.listTools();
    expect(listed.tools.map((tool) => tool.name)).toEqual(['payment.start', 'payment.capture', 'invoice.approve', 'invoice.status']);
    expect(listed).toMatchObject({ cacheScope: 'private' });
    const started = await clerk.client.callTool({ name: 'payment.start', arguments: {} });
    const paymentId = (started.structuredContent as { paymentId: string }).paymentId;
    await clerk.client.callTool({ name: 'payment.capture', arguments: { paymentId } });
    await expect(clerk.client.callTool({ name: 'payment.refund', arguments: { paymentId } })).rejects.toThrow();
    expect(clerk.responses.at(-1)).toEqual({
      status: 403,
      wwwAuthenticate: expect.stringMatching(/^Bearer error="insufficient_scope", scope="payments:refund", resource_metadata="/),
    });
    expect(app.get(HandlerLog).count('payment.refund')).toBe(0);

    const finance = await connect('alice', 'invoices:approve payments:refund');
    expect((await finance.client.listTools()).tools.map((tool) => tool.name)).toContain('payment.refund');
    const refunded = await finance.client.callTool({ name: 'payment.refund', arguments: { paymentId } });
    expect(refunded.isError).toBeFalsy();
    expect(refunded.structuredContent).toMatchObject({ refundedBy: 'alice' });
    expect(app.get(HandlerLog).count('payment.refund')).toBe(1);
  });

  it('refuses a 2026-07-28 request without a token with 401 naming the metadata', async () => {
    const reply = await postJsonRpc(
      resource,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { 'MCP-Protocol-Version': '2026-07-28' },
    );
    expect(reply.status).toBe(401);
    expect(reply.wwwAuthenticate).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });
});

/** Opaque tokens of the custom verifier: what each one stands for. */
const OPAQUE: Record<string, Omit<AuthInfo, 'token'>> = {
  'tok-clerk': { clientId: 'alice', scopes: ['invoices:approve'] },
  'tok-finance': { clientId: 'alice', scopes: ['invoices:approve', 'payments:refund'] },
  'tok-expired': { clientId: 'alice', scopes: ['payments:refund'], expiresAt: Math.floor(Date.now() / 1000) - 3600 },
  'tok-elsewhere': { clientId: 'alice', scopes: ['payments:refund'], resource: new URL('https://other.example/mcp') },
};

/** An introspection-style verifier over a table, down on `tok-down`. */
class TableVerifier implements McpTokenVerifier {
  readonly seen: string[] = [];

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    this.seen.push(token);
    if (token === 'tok-down') {
      throw new McpAuthUnavailableError('introspection endpoint timed out');
    }
    const known = OPAQUE[token];
    if (!known) {
      throw new McpInvalidTokenError('Unknown or revoked token.');
    }
    return { token, ...known };
  }
}

describe('a custom token verifier (opaque tokens)', () => {
  let app: INestApplication;
  let resource: string;
  let clients: BearerClient[];
  const verifier = new TableVerifier();

  beforeEach(async () => {
    clients = [];
    app = await listenApp([
      scopedBillingModule({ auth: { verifier, authorizationServers: ['https://auth.example.com'], scopesSupported: ['workflows:read'] } }),
    ]);
    resource = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('lists and calls by the scopes it returns, and steps up on the same session', async () => {
    const agent = await connectBearerClient(new URL(resource), 'tok-clerk');
    clients.push(agent);
    const paymentId = ((await agent.call('payment.start')).structuredContent as { paymentId: string }).paymentId;
    await agent.call('payment.capture', { paymentId });
    expect(await agent.names()).not.toContain('payment.refund');
    agent.token = 'tok-finance';
    expect(await agent.names()).toContain('payment.refund');
    expect((await agent.call('payment.refund', { paymentId })).structuredContent).toEqual({ refundedBy: 'alice' });
  });

  it('answers its McpInvalidTokenError with 401 invalid_token and its words, an expired or foreign one too, and unavailability with 503', async () => {
    const unknown = await postJsonRpc(resource, INITIALIZE, { Authorization: 'Bearer tok-forged' });
    expect(unknown.status).toBe(401);
    expect(unknown.wwwAuthenticate).toBe(
      `Bearer error="invalid_token", resource_metadata="${resource.replace('/mcp', '/.well-known/oauth-protected-resource/mcp')}", error_description="Unknown or revoked token."`,
    );
    expect((await postJsonRpc(resource, INITIALIZE, { Authorization: 'Bearer tok-expired' })).wwwAuthenticate).toMatch(/expired/);
    expect((await postJsonRpc(resource, INITIALIZE, { Authorization: 'Bearer tok-elsewhere' })).wwwAuthenticate).toMatch(
      /another resource/,
    );
    const down = await postJsonRpc(resource, INITIALIZE, { Authorization: 'Bearer tok-down' });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
  });

  it('names the configured authorization servers in the metadata', async () => {
    const metadata = await (await fetch(resource.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'))).json();
    expect(metadata).toMatchObject({ authorization_servers: ['https://auth.example.com'], bearer_methods_supported: ['header'] });
    expect(metadata.scopes_supported).toEqual(['workflows:read', 'payments:refund', 'invoices:approve', 'reports:read']);
  });
});

const PASSPORT_SECRET = 'passport-secret-for-tests-only';

/** The user the app's passport-jwt strategy makes of a token. */
interface PassportUser {
  id: string;
  permissions: string[];
}

/** An app's own passport-jwt strategy (shared-secret tokens), as it already authenticates its HTTP routes. */
@Injectable()
class AppJwtStrategy extends PassportStrategy(Strategy, 'app-jwt') {
  constructor() {
    super({ jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(), secretOrKey: PASSPORT_SECRET });
  }

  validate(payload: { sub: string; permissions: string[] }): PassportUser {
    return { id: payload.sub, permissions: payload.permissions };
  }
}

/** Runs the strategy as middleware: a valid token puts the user on `req.user`; anything else leaves it unset. */
function passportUser(req: IncomingMessage, res: ServerResponse, next: () => void): void {
  passport.authenticate('app-jwt', { session: false }, (_error: unknown, user: PassportUser | false) => {
    if (user) (req as IncomingMessage & { user?: PassportUser }).user = user;
    next();
  })(req, res, next);
}

describe("the app's own Passport strategy, mapped with auth.fromRequest", () => {
  let app: INestApplication;
  let resource: string;
  let clients: BearerClient[];

  beforeEach(async () => {
    clients = [];
    const module = scopedBillingModule({
      auth: {
        fromRequest: (req) => {
          const user = req.user as PassportUser | undefined;
          return user ? { token: '', clientId: user.id, scopes: user.permissions } : undefined;
        },
        required: true,
        authorizationServers: ['https://login.example.com'],
      },
    });
    module.providers!.push(AppJwtStrategy);
    app = await listenApp([module], { configure: (created) => void created.use(passportUser) });
    resource = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  const sign = (sub: string, permissions: string[]) => jwt.sign({ sub, permissions }, PASSPORT_SECRET, { expiresIn: 600 });

  it('refuses a request without a user with 401 naming the metadata', async () => {
    const reply = await postJsonRpc(resource, INITIALIZE);
    expect(reply.status).toBe(401);
    expect(reply.wwwAuthenticate).toMatch(
      /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/,
    );
  });

  it("lists and gates by the user's permissions", async () => {
    const clerk = await connectBearerClient(new URL(resource), sign('alice', ['invoices:approve']));
    clients.push(clerk);
    expect(await clerk.names()).toEqual(['payment.start', 'invoice.approve', 'invoice.status']);
    const auditorless = await connectBearerClient(new URL(resource), sign('bob', []));
    clients.push(auditorless);
    expect(await auditorless.names()).not.toContain('invoice.approve');
    expect((await clerk.call('invoice.approve')).structuredContent).toEqual({ approved: true });
  });
});

describe('stateless HTTP, and roles from an async lookup of the app', () => {
  let issuer: TestIssuer;
  let app: INestApplication;
  let resource: string;
  const staff: Record<string, string[]> = { rita: ['controller'] };
  const lookups: string[] = [];

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    app = await listenApp([
      scopedBillingModule({
        auth: {
          jwt: { issuer: issuer.issuer, jwksUrl: issuer.jwksUrl },
          roles: async (authInfo) => {
            lookups.push(authInfo.clientId);
            await new Promise((resolve) => setTimeout(resolve, 5));
            if (authInfo.clientId === 'broken') throw new Error('staff directory down');
            return staff[authInfo.clientId] ?? [];
          },
        },
        transports: { http: { stateless: true } },
      }),
    ]);
    resource = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
  });

  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  const list = async (sub: string, scope: string) => {
    const client = await connectBearerClient(new URL(resource), await issuer.sign({ sub, scope }, { audience: resource }));
    try {
      return await client.names();
    } finally {
      await client.close();
    }
  };

  it('lists every handle-keyed tool a stateless caller may use, and what its roles allow', async () => {
    expect(await list('sam', '')).toEqual(['payment.start', 'payment.capture', 'invoice.status']);
    expect(await list('sam', 'payments:refund')).toEqual(['payment.start', 'payment.capture', 'payment.refund', 'invoice.status']);
    expect(await list('rita', 'reports:read')).toEqual([
      'payment.start',
      'payment.capture',
      'invoice.status',
      'audit.trail',
      'audit.export',
    ]);
    expect(lookups).toContain('rita');
  });

  it('gives no roles when the lookup fails (fail closed)', async () => {
    expect(await list('broken', 'reports:read')).toEqual(['payment.start', 'payment.capture', 'invoice.status']);
  });

  it('refuses a stateless call without the scope with 403 before the handler runs', async () => {
    const reply = await postJsonRpc(
      resource,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'audit.export', arguments: {} } },
      { Authorization: `Bearer ${await issuer.sign({ sub: 'rita', scope: '' }, { audience: resource })}` },
    );
    expect(reply.status).toBe(403);
    expect(reply.wwwAuthenticate).toMatch(/^Bearer error="insufficient_scope", scope="reports:read", /);
    expect(app.get(HandlerLog).count('audit.export')).toBe(0);
  });
});
