import { Controller, Get, type INestApplication, Req, Res } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Request, Response } from 'express';
import { MCP_ACCESS_DENIED_CODE, McpAuthenticator } from '../../lib/index.js';
import { McpServerFactory } from '../../lib/protocol/mcp-server.factory.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { scopedBillingModule } from '../fixtures/scoped-billing.app.js';
import { connectBearerClient } from '../utils/bearer-client.js';
import { createApp, listenApp } from '../utils/test-app.js';
import { TestIssuer } from '../utils/test-issuer.js';

describe('a connection without HTTP (stdio, a transport of the app) holds no scopes', () => {
  let app: INestApplication;
  let client: Client;

  beforeEach(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [scopedBillingModule({ transports: { http: false } })] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const session = app.get(McpServerFactory).createSession('stdio', undefined, { scope: 'attachment', id: 'local' });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await session.server.connect(serverSide);
    client = new Client({ name: 'in-memory', version: '1.0.0' });
    await client.connect(clientSide);
  });

  afterEach(async () => {
    await client.close();
    await app.close();
  });

  it('lists nothing that requires a scope or role, and refuses a call of it by name with -32003 before anything runs', async () => {
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['payment.start', 'invoice.status']);
    expect((await client.listPrompts()).prompts).toEqual([]);
    const refused = await client.callTool({ name: 'invoice.approve', arguments: {} }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({
      code: MCP_ACCESS_DENIED_CODE,
      message: expect.stringContaining('The tool "invoice.approve" needs the scope invoices:approve'),
      data: { name: 'invoice.approve', requiredScopes: ['invoices:approve'], missingScopes: ['invoices:approve'], missingRoles: [] },
    });
    await expect(client.getPrompt({ name: 'invoice.report' })).rejects.toMatchObject({ code: MCP_ACCESS_DENIED_CODE });
    expect(app.get(HandlerLog).count('invoice.approve')).toBe(0);
    // The session's invoice never moved.
    expect((await client.callTool({ name: 'invoice.status', arguments: {} })).structuredContent).toEqual({ state: 'review' });
  });
});

/** A plain route of the app that needs `workflows:read`, checked with the module's authenticator. */
@Controller('workflows')
class WorkflowsController {
  constructor(private readonly authenticator: McpAuthenticator) {}

  @Get()
  async list(@Req() req: Request, @Res() res: Response) {
    const authorization = await this.authenticator.authorize(req, { scopes: ['workflows:read'] });
    if (!authorization.ok) {
      res.status(authorization.status).set(authorization.headers).json({ message: authorization.message });
      return;
    }
    res.json({ viewer: authorization.authInfo?.clientId, scopes: [...authorization.grants.scopes] });
  }
}

describe("McpAuthenticator.authorize on the app's own routes", () => {
  let issuer: TestIssuer;
  let app: INestApplication;
  let base: string;

  beforeAll(async () => {
    issuer = await TestIssuer.start();
    const module = scopedBillingModule({
      auth: { jwt: { issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }, scopesSupported: ['workflows:read'] },
    });
    module.controllers = [WorkflowsController];
    app = await listenApp([module]);
    base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
  });

  afterAll(async () => {
    await app.close();
    await issuer.close();
  });

  const get = (token?: string) => fetch(`${base}/workflows`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const token = (scope: string) => issuer.sign({ sub: 'olga', scope }, { audience: `${base}/mcp` });

  it('answers 401 with the metadata and the scope to ask for, 403 insufficient_scope, or the page', async () => {
    const anonymous = await get();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="workflows:read"`,
    );
    const without = await get(await token('payments:refund'));
    expect(without.status).toBe(403);
    expect(without.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", scope="workflows:read", /);
    const invalid = await get(await issuer.sign({ sub: 'olga', scope: 'workflows:read' }, { audience: 'http://elsewhere/mcp' }));
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token", /);
    const allowed = await get(await token('workflows:read payments:refund'));
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toEqual({ viewer: 'olga', scopes: ['workflows:read', 'payments:refund'] });
  });
});

describe('the resource URL', () => {
  let issuer: TestIssuer;

  beforeAll(async () => {
    issuer = await TestIssuer.start();
  });

  afterAll(async () => {
    await issuer.close();
  });

  it('must be set when the server listens beyond loopback: app.listen rejects naming auth.resource', async () => {
    const app = await createApp([
      scopedBillingModule({
        auth: { jwt: { issuer: issuer.issuer, jwksUrl: issuer.jwksUrl } },
        transports: { http: { allowedHosts: ['mcp.example.com'] } },
      }),
    ]);
    await expect(app.listen(0, '0.0.0.0')).rejects.toThrow(
      /beyond loopback, so this server cannot tell the URL clients reach it at; set auth\.resource/,
    );
    await app.close();
  });

  it('is auth.resource when set: the audience, the metadata and its URL follow it', async () => {
    const resource = 'https://mcp.example.com/billing/mcp';
    const app = await listenApp([
      scopedBillingModule({
        auth: { jwt: { issuer: issuer.issuer, jwksUrl: issuer.jwksUrl }, resource },
        transports: { http: { path: '/mcp' } },
      }),
    ]);
    try {
      const base = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}`;
      const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource/billing/mcp`)).json();
      expect(metadata).toMatchObject({ resource });
      const local = await issuer.sign({ sub: 'a', scope: '' }, { audience: `${base}/mcp` });
      const refused = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${local}`, 'Content-Type': 'application/json' },
        body: '{}',
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/billing/mcp", error_description="The access token was not issued for this resource (aud)."',
      );
    } finally {
      await app.close();
    }
  });
});

describe('anonymous callers allowed (auth.required: false)', () => {
  let app: INestApplication;

  afterEach(async () => {
    await app.close();
  });

  it('see what requires nothing, and a call of a scoped tool gets 401 asking for its scope', async () => {
    app = await listenApp([scopedBillingModule({ auth: { required: false, authorizationServers: ['https://auth.example.com'] } })]);
    const url = `http://127.0.0.1:${(app.getHttpServer().address() as { port: number }).port}/mcp`;
    const anonymous = await connectBearerClient(new URL(url), undefined);
    try {
      expect(await anonymous.names()).toEqual(['payment.start', 'invoice.status']);
      await expect(anonymous.call('invoice.approve')).rejects.toMatchObject({ code: 401 });
      expect(anonymous.responses.at(-1)?.wwwAuthenticate).toMatch(
        /^Bearer resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp", scope="invoices:approve"$/,
      );
    } finally {
      await anonymous.close();
    }
  });
});
