import { ConsoleLogger, Logger, UnauthorizedException, type INestApplication } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { InMemoryFsmStateStore, type McpModuleOptions, type WorkflowSnapshot, type FsmStateStore } from '../../lib/index.js';
import { badCursor, invalidConsolePath, notAuthorized, unknownMachine } from '../../lib/console/console.messages.js';
import { escapeHtml } from '../../lib/console/console-html.js';
import { storeCannotRead } from '../../lib/stores/stores.messages.js';
import { billingModule } from '../fixtures/billing.app.js';
import { openEventStream } from '../utils/event-stream.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { bootstrapError, HTTP_ADAPTERS, listenApp, type HttpAdapterName } from '../utils/test-app.js';

/** A `{ load, save }` store without the read methods. */
class PlainStore implements FsmStateStore {
  private readonly rows = new Map<string, WorkflowSnapshot>();
  async load(key: string) {
    return this.rows.get(key);
  }
  async save(key: string, snapshot: WorkflowSnapshot) {
    this.rows.set(key, structuredClone(snapshot));
  }
}

/** GET over node:http, so Host can be set as a client sends it. */
function get(url: URL, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the workflow console (HTTP)', () => {
  let app: INestApplication | undefined;
  let clients: TestClient[] = [];
  let store: InMemoryFsmStateStore;

  const start = async (options: Partial<McpModuleOptions>, adapter: HttpAdapterName = 'express') => {
    store = new InMemoryFsmStateStore({ history: true });
    app = await listenApp([billingModule({ store, ...options })], { adapter });
    return mcpUrl(app);
  };
  const client = async (url: URL) => {
    const connected = await connectClient(url);
    clients.push(connected);
    return connected;
  };
  const authorize = async (agent: TestClient) =>
    ((await agent.call('payment.authorize', { amount: 25, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;

  afterEach(async () => {
    await Promise.all(clients.map((each) => each.close().catch(() => undefined)));
    clients = [];
    await app?.close();
    app = undefined;
  });

  it.each(HTTP_ADAPTERS)('is off by default (404 on %s)', async (adapter) => {
    const url = await start({}, adapter);
    expect((await fetch(new URL('/workflows', url))).status).toBe(404);
    expect((await fetch(new URL('/workflows/events', url))).status).toBe(404);
  });

  describe.each([
    ['express', false],
    ['fastify', false],
    ['express', true],
  ] as const)('served on %s (direct: %s)', (adapter, direct) => {
    it('lists an instance, serves its page, and streams its transitions', async () => {
      const url = await start({ console: true, transports: { http: { path: '/mcp', direct } } }, adapter);
      const agent = await client(url);
      const id = await authorize(agent);
      const list = await fetch(new URL('/workflows?machine=payment', url));
      expect(list.status).toBe(200);
      expect(list.headers.get('content-security-policy')).toMatch(
        /^default-src 'none'; style-src 'sha256-[^']+'; script-src 'sha256-[^']+';/,
      );
      expect(list.headers.get('cache-control')).toBe('no-store');
      expect(await list.text()).toContain(`data-instance="${id}" data-machine="payment" data-state="authorized"`);
      const instance = await fetch(new URL(`/workflows/payment/${id}`, url));
      expect(instance.status).toBe(200);
      expect(await instance.text()).toMatch(/data-state-node="authorized"[^>]*aria-current="step"/);

      const stream = await openEventStream(new URL('/workflows/events?machine=payment', url));
      const instanceStream = await openEventStream(new URL(`/workflows/payment/${id}/events`, url));
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers['content-type']).toBe('text/event-stream; charset=utf-8');
        await agent.call('payment.capture', { paymentId: id });
        const row = JSON.parse((await stream.next((event) => event.event === 'transition')).data);
        expect(row).toMatchObject({ machine: 'payment', instance: id, state: 'captured', href: `/workflows/payment/${id}` });
        const page = JSON.parse((await instanceStream.next((event) => event.event === 'transition')).data);
        expect(page.marks).toEqual({ current: ['captured'], within: [] });
        expect(page.history.map((entry: { tool: string }) => entry.tool)).toEqual(['payment.capture', 'payment.authorize']);
        expect(JSON.parse(page.context)).toEqual({ authorized: 25, captured: 25, refunded: 0, currency: 'EUR' });
      } finally {
        stream.close();
        instanceStream.close();
      }
    });
  });

  it("serves a session-keyed instance by its session id, the diagram marking the session's state", async () => {
    const url = await start({ console: true });
    const agent = await client(url);
    await agent.call('invoice.submit');
    const sessionId = agent.transport.sessionId!;
    const list = await (await fetch(new URL('/workflows?machine=invoice', url))).text();
    expect(list).toContain(`data-instance="${sessionId}" data-machine="invoice" data-state="review"`);
    expect(list).toContain(`href="/workflows/invoice/${sessionId}"`);
    const page = await fetch(new URL(`/workflows/invoice/${sessionId}`, url));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(/data-state-node="review"[^>]*aria-current="step"/);
    expect(html).toMatch(/<tr data-history-entry data-tool="invoice\.submit">/);
  });

  it('asks authorize for every page and stream: false is 403, a thrown HttpException its status, true serves', async () => {
    let verdict: () => boolean | Promise<boolean> = () => false;
    const url = await start({ console: { authorize: () => verdict() } });
    const refused = await fetch(new URL('/workflows', url));
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain(notAuthorized());
    expect((await fetch(new URL('/workflows/events', url))).status).toBe(403);
    verdict = () => {
      throw new UnauthorizedException('Sign in to see the console.');
    };
    const unauthorized = await fetch(new URL('/workflows/payment/x', url));
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.text()).toContain('Sign in to see the console.');
    verdict = async () => true;
    expect((await fetch(new URL('/workflows', url))).status).toBe(200);
  });

  it('gives authorize the principal that auth.fromRequest found', async () => {
    const seen: unknown[] = [];
    const url = await start({
      console: { authorize: (request) => (seen.push(request.auth?.clientId), request.auth?.scopes.includes('workflows:read') === true) },
      auth: {
        fromRequest: (req) => (req.headers.authorization ? { token: 't', clientId: 'ops', scopes: ['workflows:read'] } : undefined),
      },
      transports: { http: { path: '/mcp' } },
    });
    expect((await fetch(new URL('/workflows', url))).status).toBe(403);
    expect((await fetch(new URL('/workflows', url), { headers: { Authorization: 'Bearer t' } })).status).toBe(200);
    expect(seen).toEqual([undefined, 'ops']);
  });

  it('refuses a Host that is not this server (DNS rebinding) before authorize runs', async () => {
    let asked = 0;
    const url = await start({ console: { authorize: () => (asked++, true) } });
    const response = await get(new URL('/workflows', url), { host: 'evil.example' });
    expect(response.status).toBe(403);
    expect(response.body).toContain('evil.example');
    expect(asked).toBe(0);
  });

  it.each([
    [{ path: 'workflows' }, invalidConsolePath('workflows')],
    [{ path: '/workflows/' }, invalidConsolePath('/workflows/')],
    [{ pageSize: 0 }, 'McpModule: console.pageSize must be a whole number from 1 to 1000; got 0.'],
    [{ maxStreams: 1.5 }, 'McpModule: console.maxStreams must be a whole number from 1 to 100000; got 1.5.'],
  ])('fails at startup on a console option it cannot use: %j', async (console, message) => {
    expect(await bootstrapError([billingModule({ console })])).toBe(message);
  });

  it('answers HEAD on a stream without holding it open', async () => {
    const url = await start({ console: { maxStreams: 1 } });
    const head = await fetch(new URL('/workflows/events', url), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect((await fetch(new URL('/workflows', url), { method: 'HEAD' })).status).toBe(200);
    const stream = await openEventStream(new URL('/workflows/events', url));
    expect(stream.status).toBe(200);
    stream.close();
  });

  it('fails at startup, naming the read methods, when the store has none', async () => {
    expect(await bootstrapError([billingModule({ store: new PlainStore(), console: true })])).toBe(storeCannotRead('PlainStore'));
  });

  it('answers 400 for an unknown machine or a cursor it did not write, 404 for an unknown path or instance', async () => {
    const url = await start({ console: true });
    const unknown = await fetch(new URL('/workflows?machine=ghost', url));
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain(escapeHtml(unknownMachine('ghost')));
    const forged = await fetch(new URL('/workflows?after=bm90LWEtY3Vyc29y', url));
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain(escapeHtml(badCursor()));
    expect((await fetch(new URL('/workflows/payment/no-such-handle', url))).status).toBe(404);
    expect((await fetch(new URL('/workflows/ghost/x', url))).status).toBe(404);
    expect((await fetch(new URL('/workflows/payment/x/y', url))).status).toBe(404);
  });

  it('pages newest first with a link to older instances, and filters a parent state by its stored values', async () => {
    const url = await start({ console: { pageSize: 2 } });
    const agent = await client(url);
    const ids = [await authorize(agent), await authorize(agent), await authorize(agent)];
    await agent.call('payment.capture', { paymentId: ids[0] });
    const first = await (await fetch(new URL('/workflows?machine=payment', url))).text();
    const listed = (html: string) => [...html.matchAll(/<tr data-instance="([^"]+)"/g)].map((match) => match[1]);
    expect(listed(first)).toEqual([ids[0], ids[2]]);
    const older = /<a rel="next" href="([^"]+)">/.exec(first)![1].replace(/&amp;/g, '&');
    const second = await (await fetch(new URL(older, url))).text();
    expect(listed(second)).toEqual([ids[1]]);
    expect(second).not.toContain('rel="next"');
    const captured = await (await fetch(new URL('/workflows?machine=payment&state=captured', url))).text();
    expect(listed(captured)).toEqual([ids[0]]);
  });

  it('escapes what the store holds: a context with markup is shown as text', async () => {
    const url = await start({ console: true });
    await store.save('payment:markup', {
      state: 'authorized',
      updatedAt: new Date().toISOString(),
      context: { note: '</pre><script>alert(1)</script>' },
    });
    const html = await (await fetch(new URL('/workflows/payment/markup', url))).text();
    expect(html).toContain('&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html.match(/<script>/g)).toHaveLength(1);
  });

  it('bounds its streams: beyond maxStreams 503 with Retry-After; heartbeats; all closed by app.close()', async () => {
    const url = await start({ console: { maxStreams: 1, heartbeatMs: 100 } });
    const stream = await openEventStream(new URL('/workflows/events', url));
    const refused = await fetch(new URL('/workflows/events', url));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('2');
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(stream.text().match(/: heartbeat/g)?.length).toBeGreaterThanOrEqual(2);
    const closing = Date.now();
    await app!.close();
    app = undefined;
    await stream.ended;
    expect(Date.now() - closing).toBeLessThan(3000);
  });

  it('still moves the list rows while the store cannot be read, and logs no handle', async () => {
    const failing = new (class extends InMemoryFsmStateStore {
      failLoads = false;
      override async load(key: string) {
        if (this.failLoads) throw new Error('database went away');
        return super.load(key);
      }
    })({ history: true });
    const logger = new RecordingLogger();
    app = await listenApp([billingModule({ store: failing, console: true })]);
    Logger.overrideLogger(logger);
    const url = await mcpUrl(app);
    const agent = await client(url);
    const id = await authorize(agent);
    const stream = await openEventStream(new URL('/workflows/events', url));
    try {
      failing.failLoads = true;
      await agent.call('payment.capture', { paymentId: id });
      const row = JSON.parse((await stream.next((event) => event.event === 'transition')).data);
      expect(row).toMatchObject({ instance: id, state: 'captured' });
      expect(row.owner).toBeUndefined();
      await eventually(() => logger.matching('warn', /database went away/).length === 1);
      expect(logger.lines.filter((line) => line.message.includes(id))).toEqual([]);
    } finally {
      stream.close();
      Logger.overrideLogger(new ConsoleLogger());
    }
  });

  it('ends a stream after streamMaxMs (the page reconnects)', async () => {
    const url = await start({ console: { streamMaxMs: 300 } });
    const stream = await openEventStream(new URL('/workflows/events', url));
    expect(stream.text()).toContain('retry: 1000');
    await stream.ended;
  });
});
