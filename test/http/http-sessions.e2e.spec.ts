import type { INestApplication } from '@nestjs/common';
import { FsmStateStore } from '../../lib/index.js';
import { McpSessionRegistry } from '../../lib/sessions/mcp-session.registry.js';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, eventually, mcpUrl, postMcp, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { RawSession } from '../utils/loopback-post.js';
import { createApp, HTTP_ADAPTERS, listenApp } from '../utils/test-app.js';

async function errorMessageOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { message: string } }).error.message;
}

describe.each(HTTP_ADAPTERS)('stateful HTTP sessions on %s', (adapter) => {
  let app: INestApplication;
  let url: URL;
  let clients: TestClient[];

  async function start(options: Parameters<typeof billingModule>[0] = {}) {
    app = await listenApp([billingModule(options)], { adapter });
    url = await mcpUrl(app);
  }

  const connect = async () => {
    const client = await connectClient(url);
    clients.push(client);
    return client;
  };

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('sends list_changed only to the sessions whose menu changed', async () => {
    await start();
    const owner = await connect();
    const watcher = await connect();
    const bystander = await connect();
    const started = await owner.call('payment.authorize', { amount: 3, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await watcher.call('payment.refund', { paymentId });
    await Promise.all([owner.names(), watcher.names(), bystander.names()]);
    const before = [owner.listChanged(), watcher.listChanged(), bystander.listChanged()];
    await owner.call('payment.capture', { paymentId });
    await eventually(() => owner.listChanged() === before[0] + 1 && watcher.listChanged() === before[1] + 1);
    expect(await watcher.names()).toContain('payment.refund');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(bystander.listChanged()).toBe(before[2]);
  });

  it("lists every handle-keyed tool with gate.handleToolsMenu: 'all', still gated at call time", async () => {
    await start({ gate: { handleToolsMenu: 'all' } });
    const agent = await connect();
    expect(await agent.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.refund']));
    const started = await agent.call('payment.authorize', { amount: 3, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const early = await agent.call('payment.refund', { paymentId });
    expect(early._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'authorized' });
  });

  it('answers 404 for an unknown session and 400 for a request without one', async () => {
    await start();
    const unknown = await postMcp(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'mcp-session-id': 'nope' });
    expect(unknown.status).toBe(404);
    expect(await errorMessageOf(unknown)).toMatch(/^Session "nope" was not found/);
    const missing = await postMcp(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(missing.status).toBe(400);
  });

  it('closes a session on DELETE and deletes its session-keyed instance', async () => {
    await start();
    const agent = await connect();
    const sessionId = agent.transport.sessionId!;
    await agent.call('invoice.submit');
    const store = app.get<FsmStateStore>(FsmStateStore);
    expect((await store.load(`invoice:session:${sessionId}`))?.state).toBe('review');
    expect(app.get(McpSessionRegistry).get(sessionId)).toBeDefined();
    await agent.transport.terminateSession();
    expect(app.get(McpSessionRegistry).get(sessionId)).toBeUndefined();
    await eventually(async () => (await store.load(`invoice:session:${sessionId}`)) === undefined);
    const after = await postMcp(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { 'mcp-session-id': sessionId });
    expect(after.status).toBe(404);
  });

  it('shuts down promptly while clients keep their sessions (and GET streams) open', async () => {
    await start();
    const agent = await connect();
    await agent.names();
    const started = Date.now();
    await app.close();
    expect(Date.now() - started).toBeLessThan(5000);
    app = await createApp([billingModule()], adapter);
  });

  it('at maxSessions, gives a new session the place of a used one that holds nothing, whose client then gets 404', async () => {
    await start({ transports: { http: { sessions: { maxSessions: 1, maxPerAddress: 2 } } } });
    // No GET stream, nothing but a list: it holds nothing its client could lose.
    const idle = await RawSession.open(url, '127.0.0.1');
    expect((await idle.request('tools/list')).status).toBe(200);
    const admitted = await postMcp(url, RAW_INITIALIZE);
    expect(admitted.status).toBe(200);
    expect(app.get(McpSessionRegistry).size).toBe(1);
    expect((await idle.request('tools/list')).status).toBe(404);
  });

  it('evicts idle sessions', async () => {
    await start({ transports: { http: { sessions: { idleTtlMs: 1000 } } } });
    const agent = await connect();
    const registry = app.get(McpSessionRegistry);
    const sessionId = agent.transport.sessionId!;
    expect(registry.get(sessionId)).toBeDefined();
    await eventually(() => registry.get(sessionId) === undefined, 5000);
    await expect(agent.names()).rejects.toMatchObject({ code: 404 });
  });

  it('rejects a foreign Host or Origin on loopback (DNS rebinding protection)', async () => {
    await start();
    const badOrigin = await postMcp(url, RAW_INITIALIZE, { origin: 'http://evil.example' });
    expect(badOrigin.status).toBe(403);
    expect(await errorMessageOf(badOrigin)).toMatch(/Origin "http:\/\/evil.example" is not allowed/);
    const goodOrigin = await postMcp(url, RAW_INITIALIZE, { origin: `http://localhost:${url.port}` });
    expect(goodOrigin.status).toBe(200);
    const badHost = await new Promise<number>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(
          {
            host: '127.0.0.1',
            port: url.port,
            path: '/mcp',
            method: 'POST',
            headers: { host: 'evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          },
          (res) => resolve(res.statusCode ?? 0),
        );
        req.on('error', reject);
        req.end(JSON.stringify(RAW_INITIALIZE));
      }, reject);
    });
    expect(badHost).toBe(403);
  });
});
