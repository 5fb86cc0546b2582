import type { INestApplication } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, mcpUrl, postMcp, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { HTTP_ADAPTERS, listenApp, type HttpAdapterName } from '../utils/test-app.js';

/** `Bearer <name>` is the caller `<name>`. */
function bearer(headers: IncomingMessage['headers']): AuthInfo | undefined {
  const token = /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1];
  return token ? { token, clientId: token, scopes: [] } : undefined;
}

/** Bearer auth as the app's middleware (`app.use`): on Express and on Fastify (middie), on the Node request. */
function bearerMiddleware(req: IncomingMessage & { auth?: AuthInfo }, _res: ServerResponse, next: () => void): void {
  req.auth = bearer(req.headers);
  next();
}

/** Bearer auth as a Fastify `onRequest` hook, on Fastify's request; it also sets a header on the reply. */
function bearerHook(app: INestApplication): void {
  const fastify = (app as NestFastifyApplication).getHttpAdapter().getInstance();
  fastify.addHook('onRequest', async (request, reply) => {
    (request as unknown as { auth?: AuthInfo }).auth = bearer(request.headers);
    void reply.header('x-fastify-hook', 'ran');
  });
}

/** The ways an app says who the caller is, per adapter. */
const authWays: [HttpAdapterName, string, (app: INestApplication) => void][] = [
  ['express', 'middleware', (app) => app.use(bearerMiddleware)],
  ['fastify', 'middleware', (app) => app.use(bearerMiddleware)],
  ['fastify', 'an onRequest hook', bearerHook],
];

describe.each(authWays)('the framework route on %s, with auth set by %s', (adapter, _way, configure) => {
  let app: INestApplication;
  let url: URL;
  let clients: TestClient[];

  const connect = async (headers?: Record<string, string>) => {
    const client = await connectClient(url, headers);
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    app = await listenApp([billingModule()], { adapter, configure });
    url = await mcpUrl(app);
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('binds sessions and handles to the caller the app authenticated', async () => {
    const alice = await connect({ authorization: 'Bearer alice' });
    const started = await alice.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const bob = await connect({ authorization: 'Bearer bob' });
    const stolen = await bob.call('payment.capture', { paymentId });
    expect(stolen._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect((await alice.call('payment.capture', { paymentId })).isError).toBeFalsy();

    const hijack = await postMcp(
      url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      {
        'mcp-session-id': alice.transport.sessionId!,
        authorization: 'Bearer bob',
      },
    );
    // Another principal's session answers as an unknown one would.
    expect(hijack.status).toBe(404);
  });

  if (configure === bearerHook) {
    it("keeps the headers the app's hooks set on the reply", async () => {
      const response = await postMcp(url, RAW_INITIALIZE);
      expect(response.status).toBe(200);
      expect(response.headers.get('x-fastify-hook')).toBe('ran');
    });
  }
});

describe.each(HTTP_ADAPTERS)('failures and paths on %s', (adapter) => {
  let app: INestApplication | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it.each([false, true])('answers an error in the transport with 500 and keeps serving (direct: %s)', async (direct) => {
    let failing = true;
    const authenticate = () => {
      if (failing) {
        throw new Error('the credential store is down');
      }
      return undefined;
    };
    app = await listenApp([billingModule({ auth: { fromRequest: authenticate }, transports: { http: { direct } } })], { adapter });
    const url = await mcpUrl(app);
    const failed = await postMcp(url, RAW_INITIALIZE);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32603, message: 'Internal error while serving MCP; the server log has the details.' },
      id: null,
    });
    failing = false;
    const agent = await connectClient(url);
    expect(await agent.names()).toContain('invoice.submit');
    await agent.close();
  });

  it('answers a body not declared JSON with 415, as on the other adapter', async () => {
    app = await listenApp([billingModule()], { adapter });
    const url = await mcpUrl(app);
    const agent = await connectClient(url);
    const text = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'text/plain',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': agent.transport.sessionId!,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(text.status).toBe(415);
    expect(await agent.names()).toContain('invoice.submit');
    await agent.close();
  });

  it.each([false, true])('serves the absolute path: setGlobalPrefix does not apply to it (direct: %s)', async (direct) => {
    app = await listenApp([billingModule({ transports: { http: { direct } } })], {
      adapter,
      configure: (nest) => void nest.setGlobalPrefix('api'),
    });
    const prefixed = await postMcp(await mcpUrl(app, '/api/mcp'), RAW_INITIALIZE);
    expect(prefixed.status).toBe(404);
    const agent = await connectClient(await mcpUrl(app, '/mcp'));
    expect(await agent.names()).toContain('invoice.submit');
    await agent.close();
  });
});
