import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import jwt from 'jsonwebtoken';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { API_KEY, apiKeyAppModule, AuditLog, JWT_SECRET, jwtAppModule } from '../fixtures/auth-guards.app.js';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { mcpUrl, textOf } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';
import { ensureSampleBuilt } from '../utils/sample-build.js';

/** An SDK client over Streamable HTTP that sends `headers` with every request. */
interface HeaderClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  names: () => Promise<string[]>;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
}

// The stdio servers below run the built sample's library.
beforeAll(ensureSampleBuilt, 300_000);
describe("the app's own guards protect tools", () => {
  let app: INestApplication;
  let clients: Client[];

  const connectWith = async (headers: Record<string, string> = {}): Promise<HeaderClient> => {
    const client = new Client({ name: 'e2e', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(await mcpUrl(app), { requestInit: { headers } });
    await client.connect(transport);
    clients.push(client);
    return {
      client,
      transport,
      names: async () => (await client.listTools()).tools.map((tool) => tool.name),
      call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
    };
  };

  const stateOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/state'] as { state: string } | undefined)?.state;

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  describe('a global API-key guard (APP_GUARD) written for HTTP routes', () => {
    beforeEach(async () => {
      app = await listenApp([apiKeyAppModule()]);
    });

    it('refuses a tool call without the header with the guard message, and the handler does not run', async () => {
      const anonymous = await connectWith();
      const refused = await anonymous.call('invoice.submit');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('Missing API key');
      expect(refused._meta?.['nestjs-mcp-fsm/error']).toBeUndefined();
      expect(app.get(HandlerLog).count('invoice.submit')).toBe(0);
      expect(await anonymous.names()).toContain('invoice.submit');
    });

    it('refuses a wrong key with its ForbiddenException message', async () => {
      const wrong = await connectWith({ 'x-api-key': 'nope' });
      const refused = await wrong.call('invoice.submit');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('Invalid API key');
      expect(app.get(HandlerLog).count('invoice.submit')).toBe(0);
    });

    it('runs the call when the header carries the key, and the workflow moves on', async () => {
      const keyed = await connectWith({ 'x-api-key': API_KEY });
      const submitted = await keyed.call('invoice.submit');
      expect(submitted.isError).toBeFalsy();
      expect(submitted.structuredContent).toEqual({ submitted: true });
      expect(stateOf(submitted)).toBe('review');
      expect(app.get(HandlerLog).count('invoice.submit')).toBe(1);
      expect(await keyed.names()).toContain('invoice.approve');
    });

    it('guards unbound tools too', async () => {
      const anonymous = await connectWith();
      const refused = await anonymous.call('invoice.status');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('Missing API key');
      const keyed = await connectWith({ 'x-api-key': API_KEY });
      expect((await keyed.call('invoice.status')).isError).toBeFalsy();
    });

    it('keeps guarding an ordinary HTTP route of the same app', async () => {
      const url = new URL('/status', await mcpUrl(app));
      const anonymous = await fetch(url);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ message: 'Missing API key' });
      const wrong = await fetch(url, { headers: { 'x-api-key': 'nope' } });
      expect(wrong.status).toBe(403);
      const keyed = await fetch(url, { headers: { 'x-api-key': API_KEY } });
      expect(keyed.status).toBe(200);
      expect(await keyed.json()).toEqual({ ok: true });
    });
  });

  describe('a hidden tool called by name, behind a global API-key guard', () => {
    /** Signs requests in as the bearer token's name (a stand-in for an auth middleware). */
    const bearerAuth = (req: IncomingMessage & { auth?: unknown }, _res: ServerResponse, next: () => void) => {
      const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (match) {
        req.auth = { token: match[1], clientId: match[1], scopes: [] };
      }
      next();
    };
    const refusalOf = (result: CallToolResult) =>
      result._meta?.['nestjs-mcp-fsm/error'] as { code: string; state: string; allowedTools: string[] } | undefined;

    beforeEach(async () => {
      app = await listenApp([apiKeyAppModule()], { configure: (nest) => void nest.use(bearerAuth) });
    });

    it("answers FORBIDDEN with the allowed actions, not the guard text, on the caller's own instance", async () => {
      const anonymous = await connectWith();
      const refused = await anonymous.call('invoice.approve');
      expect(refused.isError).toBe(true);
      expect(refusalOf(refused)).toMatchObject({
        code: 'FORBIDDEN',
        state: 'draft',
        allowedTools: expect.arrayContaining(['invoice.submit']),
      });
      expect(textOf(refused)).toMatch(/^FORBIDDEN: "invoice.approve" is not available while invoice is "draft"/);
      expect(app.get(HandlerLog).count('invoice.approve')).toBe(0);
      expect(textOf(await anonymous.call('invoice.submit'))).toBe('Missing API key');
    });

    it("tells a caller nothing about another principal's instance: the guard's text stands", async () => {
      const alice = await connectWith({ 'x-api-key': API_KEY, Authorization: 'Bearer alice' });
      const started = await alice.call('payment.authorize', { amount: 5, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };

      for (const stranger of [await connectWith({ Authorization: 'Bearer bob' }), await connectWith()]) {
        const refused = await stranger.call('payment.refund', { paymentId });
        expect(textOf(refused)).toBe('Missing API key');
        expect(refusalOf(refused)).toBeUndefined();
      }
      const aliceWithoutKey = await connectWith({ Authorization: 'Bearer alice' });
      const refused = await aliceWithoutKey.call('payment.refund', { paymentId });
      expect(refusalOf(refused)).toMatchObject({ code: 'FORBIDDEN', state: 'authorized' });
      expect(app.get(HandlerLog).count('payment.refund')).toBe(0);
    });
  });

  describe("passport-jwt: @UseGuards(AuthGuard('jwt')) on a tool method", () => {
    const token = (payload: object, secret = JWT_SECRET, options: jwt.SignOptions = { expiresIn: '5m' }) =>
      jwt.sign(payload, secret, options);
    const bearer = (value: string) => ({ Authorization: `Bearer ${value}` });

    beforeEach(async () => {
      app = await listenApp([jwtAppModule()]);
    });

    const expectRefusedWithoutTransition = async (agent: HeaderClient) => {
      const refused = await agent.call('shipment.ship');
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('Unauthorized');
      expect(refused._meta?.['nestjs-mcp-fsm/error']).toBeUndefined();
      expect(app.get(HandlerLog).count('shipment.ship')).toBe(0);
      expect(app.get(AuditLog).entries).toEqual([]);
      expect(stateOf(await agent.call('shipment.status'))).toBe('packing');
      const names = await agent.names();
      expect(names).toContain('shipment.ship');
      expect(names).not.toContain('shipment.track');
    };

    it('refuses a call without a token: handler not run, no transition', async () => {
      await expectRefusedWithoutTransition(await connectWith());
    });

    it('refuses a token signed with another secret', async () => {
      await expectRefusedWithoutTransition(await connectWith(bearer(token({ sub: 'u1', username: 'alice' }, 'other-secret'))));
    });

    it('refuses an expired token', async () => {
      const expired = token({ sub: 'u1', username: 'alice', exp: Math.floor(Date.now() / 1000) - 60 }, JWT_SECRET, {});
      await expectRefusedWithoutTransition(await connectWith(bearer(expired)));
    });

    it('runs the call with a valid token; the handler and an interceptor see req.user from validate()', async () => {
      const agent = await connectWith(bearer(token({ sub: 'u1', username: 'alice' })));
      const shipped = await agent.call('shipment.ship');
      expect(shipped.isError).toBeFalsy();
      expect(shipped.structuredContent).toEqual({ shippedBy: 'alice', userId: 'u1', from: 'packing' });
      expect(stateOf(shipped)).toBe('shipped');
      expect(app.get(HandlerLog).count('shipment.ship')).toBe(1);
      expect(app.get(AuditLog).entries).toEqual([{ tool: 'shipment.ship', user: 'alice' }]);
      const names = await agent.names();
      expect(names).toContain('shipment.track');
      expect(names).not.toContain('shipment.ship');
    });

    it('authenticates each call by the request that carried it, not by the session', async () => {
      const alice = await connectWith(bearer(token({ sub: 'u1', username: 'alice' })));
      const bob = await connectWith(bearer(token({ sub: 'u2', username: 'bob' })));
      expect((await bob.call('shipment.ship')).structuredContent).toMatchObject({ shippedBy: 'bob' });
      expect((await alice.call('shipment.ship')).structuredContent).toMatchObject({ shippedBy: 'alice' });
      expect(app.get(AuditLog).entries.map((entry) => entry.user)).toEqual(['bob', 'alice']);
    });
  });

  describe('a guard reading the tool arguments with McpExecutionContext.getArgs()', () => {
    beforeEach(async () => {
      app = await listenApp([jwtAppModule()]);
    });

    it('refuses an amount above the limit and lets one within it through', async () => {
      const agent = await connectWith();
      const refused = await agent.call('shipment.insure', { amount: 5000 });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe('amount 5000 is above the limit of 1000');
      expect(app.get(HandlerLog).count('shipment.insure')).toBe(0);

      const insured = await agent.call('shipment.insure', { amount: 1000 });
      expect(insured.isError).toBeFalsy();
      expect(insured.structuredContent).toEqual({ insured: 1000 });
      expect(app.get(HandlerLog).count('shipment.insure')).toBe(1);
    });

    it('sees validated arguments only: invalid ones are refused before any guard runs', async () => {
      const agent = await connectWith();
      const invalid = await agent.call('shipment.insure', { amount: 'lots' });
      expect(invalid.isError).toBe(true);
      expect(textOf(invalid)).toMatch(/amount/);
      expect(app.get(HandlerLog).count('shipment.insure')).toBe(0);
    });
  });

  describe('a stateful session belongs to the principal that opened it', () => {
    /** Demo bearer middleware: `Authorization: Bearer <name>` becomes `req.auth` (never do this in production). */
    const demoBearerAuth = (req: IncomingMessage & { auth?: unknown }, _res: ServerResponse, next: () => void) => {
      const match = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
      if (match) {
        req.auth = { token: match[1], clientId: match[1], scopes: [] };
      }
      next();
    };

    beforeEach(async () => {
      const moduleRef = await Test.createTestingModule({ imports: [billingModule()] }).compile();
      app = moduleRef.createNestApplication({ logger: false });
      app.use(demoBearerAuth);
      await app.listen(0, '127.0.0.1');
    });

    const post = async (sessionId: string, body: object, headers: Record<string, string> = {}) =>
      fetch(await mcpUrl(app), {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': sessionId,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 99, ...body }),
      });

    it("answers another principal and an anonymous request on alice's session 404, as for an unknown session; alice carries on", async () => {
      const alice = await connectWith({ Authorization: 'Bearer alice' });
      const sessionId = alice.transport.sessionId!;
      expect(sessionId).toEqual(expect.any(String));

      const asBob = await post(sessionId, { method: 'tools/list' }, { Authorization: 'Bearer bob' });
      expect(asBob.status).toBe(404);
      expect(((await asBob.json()) as { error: { message: string } }).error.message).toBe(
        `Session "${sessionId}" was not found (closed, expired or never opened); send a new initialize request without Mcp-Session-Id.`,
      );
      const anonymous = await post(sessionId, { method: 'tools/list' });
      expect(anonymous.status).toBe(404);
      await anonymous.text();
      const bobCalls = await post(
        sessionId,
        { method: 'tools/call', params: { name: 'invoice.submit', arguments: {} } },
        { Authorization: 'Bearer bob' },
      );
      expect(bobCalls.status).toBe(404);
      await bobCalls.text();
      expect(app.get(HandlerLog).count('invoice.submit')).toBe(0);

      expect(await alice.names()).toContain('invoice.submit');
      const submitted = await alice.call('invoice.submit');
      expect(submitted.isError).toBeFalsy();
      expect(stateOf(submitted)).toBe('review');
      expect(app.get(HandlerLog).count('invoice.submit')).toBe(1);
    });

    it('lets alice use her session from a second connection with her credentials', async () => {
      const alice = await connectWith({ Authorization: 'Bearer alice' });
      const sessionId = alice.transport.sessionId!;
      const again = await post(sessionId, { method: 'tools/list' }, { Authorization: 'Bearer alice' });
      expect(again.status).toBe(200);
      expect(await again.text()).toContain('invoice.submit');
    });
  });
});

describe('on stdio, a guard sees the request as { headers: {} } and no response', () => {
  let client: Client;

  beforeEach(async () => {
    client = new Client({ name: 'e2e', version: '1.0.0' });
    // The server is plain ESM on the library built to .sample-dist.
    const server = join(process.cwd(), 'test', 'fixtures', 'stdio-guards.server.mjs');
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [server], stderr: 'inherit' }));
  });

  afterEach(async () => {
    await client.close();
  });

  const call = async (name: string) => (await client.callTool({ name, arguments: {} })) as CallToolResult;

  it('the API-key guard refuses with its own message (there are no headers on stdio)', async () => {
    const refused = await call('probe.keyed');
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toBe('Missing API key');
  });

  it('switchToHttp() and McpExecutionContext.getRequest() give { headers: {} }, getResponse() undefined', async () => {
    const refused = await call('probe.guarded');
    expect(JSON.parse(textOf(refused))).toEqual({
      request: { headers: {} },
      response: 'undefined',
      viaMcpExecutionContext: { headers: {} },
    });
    expect((await call('probe.request')).structuredContent).toEqual({ request: { headers: {} } });
  });
});
