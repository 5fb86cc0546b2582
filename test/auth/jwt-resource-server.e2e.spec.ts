import type { INestApplication } from '@nestjs/common';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { scopedBillingModule } from '../fixtures/scoped-billing.app.js';
import { connectBearerClient, INITIALIZE, postJsonRpc, type BearerClient } from '../utils/bearer-client.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { listenApp, type HttpAdapterName } from '../utils/test-app.js';
import { TestIssuer } from '../utils/test-issuer.js';

type Variant = { name: string; adapter: HttpAdapterName; direct: boolean };
const VARIANTS: Variant[] = [
  { name: 'Express', adapter: 'express', direct: false },
  { name: 'Fastify', adapter: 'fastify', direct: false },
  { name: 'the direct route', adapter: 'express', direct: true },
];

const handleOf = (result: CallToolResult) => (result.structuredContent as { paymentId: string }).paymentId;
const stateOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/state'] as { state: string } | undefined)?.state;

/** What a rejected SDK call carried: the HTTP status of a StreamableHTTPError. */
async function httpStatusOf(call: Promise<unknown>): Promise<number | undefined> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(StreamableHTTPError);
  return (error as StreamableHTTPError).code;
}

describe.each(VARIANTS)('an MCP resource server verifying bearer JWTs against the JWKS, on $name', ({ adapter, direct }) => {
  let issuer: TestIssuer;
  let app: INestApplication;
  let logs: RecordingLogger;
  let clients: BearerClient[];
  let resource: string;
  let metadataUrl: string;

  const start = async (jwt: Record<string, unknown> = {}) => {
    app = await listenApp(
      [
        scopedBillingModule({
          auth: { jwt: { issuer: issuer.issuer, jwksUrl: issuer.jwksUrl, jwksCooldownMs: 0, ...jwt }, scopesSupported: ['workflows:read'] },
          transports: { http: { path: '/mcp', direct } },
        }),
      ],
      { adapter, configure: (created) => created.useLogger(logs) },
    );
    const { port } = app.getHttpServer().address() as { port: number };
    resource = `http://127.0.0.1:${port}/mcp`;
    metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  };
  const token = (sub: string, scope: string, extra: Record<string, unknown> = {}) =>
    issuer.sign({ sub, scope, ...extra }, { audience: resource });
  const connect = async (bearer: string | undefined) => {
    const client = await connectBearerClient(new URL(resource), bearer);
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    issuer = await TestIssuer.start();
  });

  afterAll(async () => {
    await issuer.close();
  });

  beforeEach(async () => {
    clients = [];
    logs = new RecordingLogger();
    issuer.jwksMode = 'ok';
    await start();
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await app.close();
  });

  it('publishes RFC 9728 metadata at the path-suffixed well-known URL and at the bare one', async () => {
    for (const url of [metadataUrl, metadataUrl.replace(/\/mcp$/, '')]) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource,
        authorization_servers: [issuer.issuer],
        scopes_supported: ['workflows:read', 'payments:refund', 'invoices:approve', 'reports:read'],
        bearer_methods_supported: ['header'],
        resource_name: 'scoped-billing',
      });
    }
  });

  it('answers a request without a token with 401 and a challenge naming the metadata', async () => {
    const reply = await postJsonRpc(resource, INITIALIZE);
    expect(reply.status).toBe(401);
    expect(reply.wwwAuthenticate).toBe(`Bearer resource_metadata="${metadataUrl}"`);
    expect(reply.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { message: expect.stringContaining('bearer token') } });
  });

  it('tells a client without a token which scope a call needs', async () => {
    const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId: 'x' } } };
    const reply = await postJsonRpc(resource, call);
    expect(reply.status).toBe(401);
    expect(reply.wwwAuthenticate).toBe(`Bearer resource_metadata="${metadataUrl}", scope="payments:refund"`);
  });

  it('refuses an expired token, one for another audience and one of another issuer with 401 invalid_token', async () => {
    const cases: [string, string, RegExp][] = [
      ['expired', await issuer.sign({ sub: 'alice', scope: '' }, { audience: resource, expiresIn: -60 }), /expired/],
      [
        'wrong audience',
        await issuer.sign({ sub: 'alice', scope: '' }, { audience: 'http://127.0.0.1:1/mcp' }),
        /not issued for this resource/,
      ],
      [
        'wrong issuer',
        await issuer.sign({ sub: 'alice', scope: '' }, { audience: resource, issuer: 'http://evil.example' }),
        /expected issuer/,
      ],
      ['not yet valid', await issuer.sign({ sub: 'alice', scope: '' }, { audience: resource, notBefore: 3600 }), /not valid yet/],
      [
        'issued an hour from now',
        await issuer.sign({ sub: 'alice', scope: '' }, { audience: resource, issuedAt: 3600 }),
        /issued in the future \(iat\)/,
      ],
      [
        'issued beyond the clock tolerance',
        await issuer.sign({ sub: 'alice', scope: '' }, { audience: resource, issuedAt: 30 }),
        /issued in the future \(iat\)/,
      ],
    ];
    for (const [, bearer, description] of cases) {
      const reply = await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` });
      expect(reply.status).toBe(401);
      expect(reply.wwwAuthenticate).toMatch(
        new RegExp(`^Bearer error="invalid_token", resource_metadata="${metadataUrl}", error_description="`),
      );
      expect(reply.wwwAuthenticate).toMatch(description);
    }
  });

  it('accepts a token issued a little later than now, within the clock tolerance (as nbf is)', async () => {
    const bearer = await issuer.sign({ sub: 'alice', scope: '' }, { audience: resource, issuedAt: 3 });
    expect((await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` })).status).toBe(200);
  });

  it('refuses alg none, an HS256 token signed with the public key, an unknown kid and garbage', async () => {
    const unknownKey = await TestIssuer.newKey();
    const forged = [
      issuer.unsigned({ sub: 'mallory', scope: 'payments:refund' }, resource),
      await issuer.hs256WithPublicKey({ sub: 'mallory', scope: 'payments:refund' }, resource),
      await issuer.sign({ sub: 'mallory', scope: 'payments:refund' }, { audience: resource, key: unknownKey }),
      'not-a-jwt',
    ];
    for (const bearer of forged) {
      const reply = await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` });
      expect(reply.status).toBe(401);
      expect(reply.wwwAuthenticate).toMatch(/^Bearer error="invalid_token", /);
    }
  });

  it('never takes a token from the query string', async () => {
    const bearer = await token('alice', 'payments:refund');
    const reply = await postJsonRpc(`${resource}?access_token=${bearer}`, INITIALIZE);
    expect(reply.status).toBe(400);
    expect(reply.wwwAuthenticate).toMatch(/^Bearer error="invalid_request", resource_metadata=/);
  });

  it('hides payment.refund from a token without payments:refund, answers its call with 403 insufficient_scope, runs nothing', async () => {
    const agent = await connect(await token('alice', 'invoices:approve'));
    const started = await agent.call('payment.start');
    const paymentId = handleOf(started);
    await agent.call('payment.capture', { paymentId });
    expect(await agent.names()).not.toContain('payment.refund');
    expect(await httpStatusOf(agent.call('payment.refund', { paymentId }))).toBe(403);
    expect(agent.responses.at(-1)).toEqual({
      status: 403,
      wwwAuthenticate: expect.stringMatching(
        new RegExp(`^Bearer error="insufficient_scope", scope="payments:refund", resource_metadata="${metadataUrl}", error_description="`),
      ),
    });
    expect(app.get(HandlerLog).count('payment.refund')).toBe(0);
    // Nothing was stored: the payment is still captured, and the capture ran once.
    expect(app.get(HandlerLog).count('payment.capture')).toBe(1);
    expect(await agent.names()).toContain('invoice.approve');
  });

  it('shows more to the same sub on the same session after a step-up, with list_changed, and runs the call', async () => {
    const agent = await connect(await token('alice', 'invoices:approve'));
    const paymentId = handleOf(await agent.call('payment.start'));
    await agent.call('payment.capture', { paymentId });
    expect(await agent.names()).not.toContain('payment.refund');
    const sessionId = agent.transport.sessionId;
    agent.token = await token('alice', 'invoices:approve payments:refund');
    const before = agent.listChanged();
    expect(await agent.names()).toContain('payment.refund');
    const deadline = Date.now() + 5_000;
    while (agent.listChanged() === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(agent.listChanged()).toBeGreaterThan(before);
    const refunded = await agent.call('payment.refund', { paymentId });
    expect(refunded.isError).toBeFalsy();
    expect(refunded.structuredContent).toMatchObject({ refundedBy: 'alice' });
    expect(stateOf(refunded)).toBe('refunded');
    expect(agent.transport.sessionId).toBe(sessionId);
    expect(app.get(HandlerLog).count('payment.refund')).toBe(1);
  });

  it('binds the session to sub, not to one token: another sub on it gets 404, exactly as an unknown session id does', async () => {
    const agent = await connect(await token('alice', ''));
    const bob = await token('bob', 'payments:refund');
    agent.token = bob;
    expect(await httpStatusOf(agent.names())).toBe(404);
    const list = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} };
    const answer = async (sessionId: string) => {
      const reply = await postJsonRpc(resource, list, {
        Authorization: `Bearer ${bob}`,
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-06-18',
      });
      const headers = Object.fromEntries([...reply.headers].filter(([name]) => name !== 'date'));
      const body = JSON.stringify(reply.body).replaceAll(sessionId, '<id>');
      return { status: reply.status, headers, body };
    };
    const alices = agent.transport.sessionId!;
    const unknown = [...alices].map((char) => (/[0-9a-f]/.test(char) ? ((parseInt(char, 16) + 1) % 16).toString(16) : char)).join('');
    expect(await answer(alices)).toEqual(await answer(unknown));
    expect((await answer(alices)).status).toBe(404);
    // Alice's session was not touched: she carries on in it.
    agent.token = await token('alice', '');
    expect(await agent.names()).toContain('payment.start');
  });

  it('gives roles from the roles claim to @McpRequire({ roles }) on a class, and scopes on top for a method', async () => {
    const clerk = await connect(await token('carol', 'reports:read', { roles: ['clerk'] }));
    expect(await clerk.names()).toEqual(['payment.start', 'invoice.status']);
    const auditor = await connect(await token('dave', '', { roles: ['auditor'] }));
    expect(await auditor.names()).toEqual(['payment.start', 'invoice.status', 'audit.trail']);
    expect(await httpStatusOf(auditor.call('audit.export'))).toBe(403);
    expect(auditor.responses.at(-1)?.wwwAuthenticate).toMatch(/error="insufficient_scope", scope="reports:read"/);
    const controller = await connect(await token('erin', 'reports:read', { roles: ['controller'] }));
    expect(await controller.names()).toEqual(['payment.start', 'invoice.status', 'audit.trail', 'audit.export']);
    expect((await controller.call('audit.export')).structuredContent).toEqual({ exported: true });
    expect(await httpStatusOf(clerk.call('audit.trail'))).toBe(403);
    expect(clerk.responses.at(-1)?.wwwAuthenticate).toBeNull();
    expect(app.get(HandlerLog).count('audit.trail')).toBe(0);
  });

  it('filters prompts by scope too, and refuses prompts/get without it', async () => {
    const without = await connect(await token('alice', ''));
    expect((await without.client.listPrompts()).prompts).toEqual([]);
    expect(await httpStatusOf(without.client.getPrompt({ name: 'invoice.report' }))).toBe(403);
    const reader = await connect(await token('bob', 'reports:read'));
    expect((await reader.client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['invoice.report']);
    expect((await reader.client.getPrompt({ name: 'invoice.report', arguments: { period: 'May' } })).messages).toHaveLength(1);
  });

  it('filters resources by scope, and refuses resources/read without it', async () => {
    const without = await connect(await token('alice', ''));
    expect((await without.client.listResources()).resources).toEqual([]);
    expect(await httpStatusOf(without.client.readResource({ uri: 'billing://ledger' }))).toBe(403);
    expect(without.responses.at(-1)?.wwwAuthenticate).toMatch(/^Bearer error="insufficient_scope", scope="reports:read", /);
    const reader = await connect(await token('bob', 'reports:read'));
    expect((await reader.client.listResources()).resources.map((resource) => resource.uri)).toEqual(['billing://ledger']);
    expect((await reader.client.readResource({ uri: 'billing://ledger' })).contents).toHaveLength(1);
  });

  it('hides again what a token with fewer scopes lacks, on the same session, with list_changed', async () => {
    const agent = await connect(await token('alice', 'invoices:approve'));
    expect(await agent.names()).toContain('invoice.approve');
    const before = agent.listChanged();
    agent.token = await token('alice', '');
    expect(await agent.names()).not.toContain('invoice.approve');
    const deadline = Date.now() + 5_000;
    while (agent.listChanged() === before && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(agent.listChanged()).toBeGreaterThan(before);
    expect(await httpStatusOf(agent.call('invoice.approve'))).toBe(403);
    expect(app.get(HandlerLog).count('invoice.approve')).toBe(0);
  });

  it('accepts a token signed with a rotated key (the JWKS is fetched again for the new kid)', async () => {
    const agent = await connect(await token('alice', ''));
    const fetched = issuer.jwksFetches;
    const previous = issuer.currentKey;
    try {
      await issuer.rotate();
      agent.token = await token('alice', 'payments:refund');
      expect(await agent.names()).toContain('payment.start');
      expect(issuer.jwksFetches).toBe(fetched + 1);
    } finally {
      await issuer.rotate(previous);
    }
  });

  it('does not fetch the JWKS again for every unknown kid within the cooldown (forged kids cannot hammer the issuer)', async () => {
    await app.close();
    await start({ jwksCooldownMs: 60_000 });
    const valid = await token('alice', '');
    expect((await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${valid}` })).status).toBe(200);
    const fetched = issuer.jwksFetches;
    const stranger = await TestIssuer.newKey();
    for (let attempt = 0; attempt < 3; attempt++) {
      const forged = await issuer.sign({ sub: 'mallory', scope: '' }, { audience: resource, key: stranger });
      const reply = await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${forged}` });
      expect(reply.status).toBe(401);
      expect(reply.wwwAuthenticate).toMatch(/error="invalid_token".*not in the issuer's key set/);
    }
    expect(issuer.jwksFetches).toBe(fetched);
  });

  it('reads no more of a JWKS than jwksMaxBytes: an endless or a 60 MB one fails closed with 503 and a log line naming the cap', async () => {
    await app.close();
    await start({ jwksMaxBytes: 64 * 1024 });
    const bearer = await token('alice', '');
    for (const mode of ['huge', 'declared'] as const) {
      issuer.jwksMode = mode;
      const reply = await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` });
      expect(reply.status).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('5');
      expect(reply.body).toMatchObject({ error: { message: expect.stringContaining('cannot be checked right now') } });
    }
    // The endless one was cut off long before its end (the socket buffers some megabytes at most).
    expect(issuer.hugeBytesWritten).toBeLessThan(32 * 1024 * 1024);
    expect(
      logs.matching('error', /could not be fetched \(.*the JWKS response is larger than 65536 bytes \(auth\.jwt\.jwksMaxBytes\)/),
    ).toHaveLength(1);
    issuer.jwksMode = 'ok';
    expect((await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` })).status).toBe(200);
  });

  it('fails closed with 503 and one clear log line when the JWKS cannot be fetched; the token is never logged', async () => {
    // A fresh app: its verifier has fetched nothing yet.
    await app.close();
    await start({ jwksTimeoutMs: 1_000 });
    const bearer = await token('alice', 'payments:refund');
    for (const mode of ['error', 'drop'] as const) {
      issuer.jwksMode = mode;
      const reply = await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` });
      expect(reply.status).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('5');
      expect(reply.body).toMatchObject({ error: { message: expect.stringContaining('cannot be checked right now') } });
    }
    const lines = logs.matching(
      'error',
      /^Token verification unavailable: the JWKS at http:\/\/127\.0\.0\.1:\d+\/jwks could not be fetched/,
    );
    expect(lines).toHaveLength(1);
    issuer.jwksMode = 'ok';
    const reply = await postJsonRpc(resource, INITIALIZE, { Authorization: `Bearer ${bearer}` });
    expect(reply.status).toBe(200);
    expect(JSON.stringify(logs.lines)).not.toContain(bearer);
    expect(JSON.stringify(logs.lines)).not.toContain(bearer.split('.')[2]);
  });
});
