import type { INestApplication } from '@nestjs/common';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { IncomingMessage } from 'node:http';
import type { DataSource } from 'typeorm';
import {
  InMemoryFsmStateStore,
  InMemoryMcpSessionStore,
  McpSessionStore,
  type FsmStateStore,
  type McpSessionOptions,
  type McpSessionStore as McpSessionStoreType,
} from '../../lib/index.js';
import { createMcpSessionHandleMigration, createMcpSessionMigration, TypeOrmMcpSessionStore } from '../../lib/typeorm.js';
import { McpSessionRegistry } from '../../lib/sessions/mcp-session.registry.js';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { databaseTargets, uniqueSuffix, type DatabaseTarget } from '../utils/databases.js';
import { dropMigrated, openMigrated } from '../utils/migrated-data-source.js';
import { connectClient, eventually, mcpUrl, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { postFrom, RawSession, type RawReply } from '../utils/loopback-post.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { HTTP_ADAPTERS, listenApp } from '../utils/test-app.js';

/** The flood's source addresses: 127.0.0.2 to 127.0.0.21 (every 127/8 address is loopback on Linux). */
const FLOOD_ADDRESSES = Array.from({ length: 20 }, (_, n) => `127.0.0.${n + 2}`);

/** The JSON-RPC error message of a reply that is one. */
const errorOf = (reply: RawReply): string => (JSON.parse(reply.body) as { error: { message: string } }).error.message;

/** `Authorization: Bearer <name>` authenticates as client `<name>`. */
function authenticate(request: IncomingMessage): AuthInfo | undefined {
  const name = request.headers.authorization?.replace(/^Bearer /, '');
  return name ? { token: name, clientId: name, scopes: [] } : undefined;
}

/** The HTTP status of an SDK client's failed request. */
async function statusOfFailure(request: Promise<unknown>): Promise<number | undefined> {
  const error = await request.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return error instanceof StreamableHTTPError ? error.code : undefined;
}

describe.each(HTTP_ADAPTERS)('session admission nobody can monopolise, on %s', (adapter) => {
  let apps: INestApplication[];
  let clients: TestClient[];
  let logs: RecordingLogger;

  const start = async ({ store, sessions }: { store?: FsmStateStore; sessions: McpSessionOptions }) => {
    const app = await listenApp([billingModule({ store, auth: { fromRequest: authenticate }, transports: { http: { sessions } } })], {
      adapter,
      configure: (created) => created.useLogger(logs),
    });
    apps.push(app);
    return { app, url: await mcpUrl(app), registry: app.get(McpSessionRegistry) };
  };

  const connect = async (url: URL, headers?: Record<string, string>) => {
    const client = await connectClient(url, headers);
    clients.push(client);
    return client;
  };

  /**
   * Two processes on `sessionStore`, maxSessions 2 on the first: a third session there evicts
   * the least recently used one that holds nothing (its invoice is back in draft, the initial
   * state), which then answers 404 on both, loses its session-keyed instance, and whose SDK
   * client initializes again.
   */
  const expectEvictionEverywhere = async (sessionStore: McpSessionStoreType) => {
    const store = new InMemoryFsmStateStore();
    const shared = { store, sessions: { store: sessionStore, maxSessions: 2, maxPerAddress: 10 } };
    const first = await start(shared);
    const second = await start(shared);
    try {
      // A raw client (no GET stream) whose invoice went back to draft, the initial state: it holds nothing.
      const evictee = await RawSession.open(first.url, '127.0.0.1');
      expect((await evictee.call('invoice.submit')).result?.isError).toBeFalsy();
      expect((await evictee.call('invoice.reject')).result?.isError).toBeFalsy();
      const evicteeId = evictee.id;
      expect((await store.load(`invoice:session:${evicteeId}`))?.state).toBe('draft');
      // An SDK client: its GET stream is live, so it is never evicted.
      const recent = await connect(first.url);
      await recent.names();

      // A third session on the first process: the least recently used one that holds nothing makes room.
      const third = await connect(first.url);
      expect(first.registry.get(evicteeId)).toBeUndefined();
      expect(first.registry.get(recent.transport.sessionId!)).toBeDefined();
      await eventually(async () => (await sessionStore.find(evicteeId)) === undefined);
      await eventually(async () => (await store.load(`invoice:session:${evicteeId}`)) === undefined);
      expect(
        logs.matching(
          'log',
          new RegExp(
            `^Session ${evicteeId.slice(0, 8)}… evicted: .*the least recently used one that holds nothing .*its client gets 404 and re-initializes\\.$`,
          ),
        ),
      ).toHaveLength(1);
      expect(logs.lines.map((line) => line.message).join('\n')).not.toContain(evicteeId);

      // The other process does not rebuild it from the store.
      const elsewhere = await postFrom(
        second.url,
        '127.0.0.1',
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        {
          'mcp-session-id': evicteeId,
          'mcp-protocol-version': '2025-06-18',
        },
      );
      expect(elsewhere.status).toBe(404);
      expect((await evictee.request('tools/list')).status).toBe(404);

      // What a client does on 404: initialize again, and carry on in a new session (once there is room).
      await third.transport.terminateSession();
      const again = await RawSession.open(first.url, '127.0.0.1');
      expect(again.id).not.toBe(evicteeId);
      const tools = (await again.request('tools/list')).result?.tools as Array<{ name: string }>;
      expect(tools.map((tool) => tool.name)).toContain('invoice.submit');
    } finally {
      store.onApplicationShutdown();
    }
  };

  beforeEach(() => {
    apps = [];
    clients = [];
    logs = new RecordingLogger();
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(apps.map((app) => app.close()));
  });

  it('after 20 addresses fill maxSessions, a client from another address gets a session and a call through at once', async () => {
    // TTLs far beyond the test: only eviction can make room.
    const { url, registry, app } = await start({
      sessions: { maxSessions: 100, maxPerAddress: 5, unusedTtlMs: 600_000, idleTtlMs: 600_000 },
    });
    const flood = await Promise.all(
      FLOOD_ADDRESSES.map(async (address) => {
        const replies: RawReply[] = [];
        for (let attempt = 0; attempt < 6; attempt++) replies.push(await postFrom(url, address, RAW_INITIALIZE));
        return replies;
      }),
    );
    for (const replies of flood) {
      expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 503]);
      const refused = replies[5];
      expect(Number(refused.retryAfter)).toBeGreaterThan(500);
      expect(errorOf(refused)).toBe(
        `Service Unavailable: this client address holds 5 live sessions (transports.http.sessions.maxPerAddress), the most one address may hold; end one (HTTP DELETE) or retry after ${refused.retryAfter} s.`,
      );
    }
    expect(registry.size).toBe(100);

    const newcomer = await connect(url);
    const submitted = await newcomer.call('invoice.submit');
    expect(submitted.isError).toBeFalsy();
    expect(await newcomer.names()).toContain('invoice.approve');

    expect(registry.size).toBe(100);
    const floodIds = flood.flat().flatMap((reply) => (reply.sessionId ? [reply.sessionId] : []));
    expect(floodIds).toHaveLength(100);
    const evicted = floodIds.filter((id) => registry.get(id) === undefined);
    expect(evicted).toHaveLength(1);
    const sessionStore = app.get<InMemoryMcpSessionStore>(McpSessionStore);
    await eventually(async () => (await sessionStore.find(evicted[0])) === undefined);
    expect(
      logs.matching(
        'log',
        new RegExp(
          `^Session ${evicted[0].slice(0, 8)}… evicted: 100 live sessions \\(transports\\.http\\.sessions\\.maxSessions\\) reached`,
        ),
      ),
    ).toHaveLength(1);
    const gone = await postFrom(
      url,
      '127.0.0.2',
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': evicted[0], 'mcp-protocol-version': '2025-06-18' },
    );
    expect(gone.status).toBe(404);
  });

  it('ends a session that made no request after initialize once unusedTtlMs passes, on every process; one used on any process lives on everywhere', async () => {
    const sessionStore = new InMemoryMcpSessionStore();
    const options = { sessions: { store: sessionStore, unusedTtlMs: 1_000 } };
    const first = await start(options);
    const second = await start(options);
    const unused = await connect(first.url);
    const used = await connect(first.url);
    await used.names();
    // Opened on the first process, used on the second only.
    const opened = await postFrom(first.url, '127.0.0.1', RAW_INITIALIZE);
    const movedId = opened.sessionId!;
    const listOn = (url: URL) =>
      postFrom(
        url,
        '127.0.0.1',
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { 'mcp-session-id': movedId, 'mcp-protocol-version': '2025-06-18' },
      );
    expect((await listOn(second.url)).status).toBe(200);
    const unusedId = unused.transport.sessionId!;
    expect(await sessionStore.find(unusedId)).toBeDefined();

    await eventually(async () => first.registry.get(unusedId) === undefined && (await sessionStore.find(unusedId)) === undefined, 5_000);
    expect(await statusOfFailure(unused.names())).toBe(404);
    expect(await used.names()).toContain('invoice.submit');
    // The first process keeps its copy too (the store says the session was used) and serves it.
    await eventually(() => first.registry.get(movedId)?.usage?.used === true, 5_000);
    expect(await sessionStore.find(movedId)).toBeDefined();
    expect((await listOn(first.url)).status).toBe(200);
    expect((await listOn(second.url)).status).toBe(200);
  });

  it('caps the live sessions of one principal, from any address, with 503 and Retry-After naming sessions.maxPerPrincipal', async () => {
    const { url } = await start({ sessions: { maxPerPrincipal: 2, maxPerAddress: 2 } });
    const alice = { authorization: 'Bearer alice' };
    expect((await postFrom(url, '127.0.0.2', RAW_INITIALIZE, alice)).status).toBe(200);
    expect((await postFrom(url, '127.0.0.3', RAW_INITIALIZE, alice)).status).toBe(200);
    const refused = await postFrom(url, '127.0.0.4', RAW_INITIALIZE, alice);
    expect(refused.status).toBe(503);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: `Service Unavailable: this principal holds 2 live sessions (transports.http.sessions.maxPerPrincipal), the most one principal may hold; end one (HTTP DELETE) or retry after ${refused.retryAfter} s.`,
      },
      id: 1,
    });
    // Other principals, and anonymous clients, on the same address.
    expect((await postFrom(url, '127.0.0.4', RAW_INITIALIZE, { authorization: 'Bearer bob' })).status).toBe(200);
    expect((await postFrom(url, '127.0.0.4', RAW_INITIALIZE)).status).toBe(200);
    // That address now holds 2: its own limit, whoever asks.
    const full = await postFrom(url, '127.0.0.4', RAW_INITIALIZE, { authorization: 'Bearer carol' });
    expect(full.status).toBe(503);
    expect(errorOf(full)).toMatch(/\(transports\.http\.sessions\.maxPerAddress\)/);
    expect(Number(full.retryAfter)).toBeGreaterThanOrEqual(1);
  });

  it('at maxSessions with every session answering a call, refuses with 503 and Retry-After; once they are answered, admits', async () => {
    const { url, app, registry } = await start({ sessions: { maxSessions: 2, maxPerAddress: 10 } });
    // The fixture's handlers wait this long: the calls are in flight while the newcomer asks.
    app.get(HandlerLog).delayMs = 3_000;
    // Raw clients, without GET streams: only their calls in flight keep them.
    const callers = [await RawSession.open(url, '127.0.0.1'), await RawSession.open(url, '127.0.0.1')];
    const calls = callers.map((caller) => caller.call('invoice.submit'));
    await eventually(() => [...registry.sessions()].every((session) => session.usage?.busy));
    const refused = await postFrom(url, '127.0.0.2', RAW_INITIALIZE);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('5');
    expect(errorOf(refused)).toBe(
      'Service Unavailable: this MCP server holds 2 live sessions (transports.http.sessions.maxSessions), its maximum, and none can be ended for a new one: each holds workflow state, a live stream or a request being answered; retry after 5 s.',
    );
    for (const { result } of await Promise.all(calls)) expect(result?.isError).toBeFalsy();
    // Answered, each holds an invoice in review; back in draft, they hold nothing.
    expect((await postFrom(url, '127.0.0.2', RAW_INITIALIZE)).status).toBe(503);
    for (const caller of callers) expect((await caller.call('invoice.reject')).result?.isError).toBeFalsy();
    expect((await postFrom(url, '127.0.0.2', RAW_INITIALIZE)).status).toBe(200);
  });

  it('at maxSessions with every session holding work (an invoice out of draft, a followed payment), refuses with 503 and Retry-After rather than evict one', async () => {
    const { url, registry } = await start({ sessions: { maxSessions: 2, maxPerAddress: 10, unusedTtlMs: 600_000 } });
    const invoice = await RawSession.open(url, '127.0.0.2');
    expect((await invoice.call('invoice.submit')).result?.isError).toBeFalsy();
    const payer = await RawSession.open(url, '127.0.0.3');
    expect((await payer.call('payment.authorize', { amount: 5, currency: 'EUR' })).result?.isError).toBeFalsy();
    await new Promise((resolve) => setTimeout(resolve, 50));

    const refused = await postFrom(url, '127.0.0.4', RAW_INITIALIZE);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('5');
    expect(errorOf(refused)).toBe(
      'Service Unavailable: this MCP server holds 2 live sessions (transports.http.sessions.maxSessions), its maximum, and none can be ended for a new one: each holds workflow state, a live stream or a request being answered; retry after 5 s.',
    );
    expect(registry.get(invoice.id)).toBeDefined();
    expect(registry.get(payer.id)).toBeDefined();

    // Once the invoice goes back to draft, its session holds nothing and makes room.
    expect((await invoice.call('invoice.reject')).result?.isError).toBeFalsy();
    expect((await postFrom(url, '127.0.0.4', RAW_INITIALIZE)).status).toBe(200);
    expect(registry.get(invoice.id)).toBeUndefined();
    expect(registry.get(payer.id)).toBeDefined();
  });

  it('an evicted session answers 404 on every process sharing the store, its instances end, and its client re-initializes', async () => {
    await expectEvictionEverywhere(new InMemoryMcpSessionStore());
  });

  describe.each(databaseTargets('session eviction with TypeOrmMcpSessionStore'))(
    'with TypeOrmMcpSessionStore on $name',
    (target: DatabaseTarget) => {
      const tables = {
        tableName: `mcp_adm_${uniqueSuffix()}_${adapter}`,
        eventTableName: `mcp_adm_${uniqueSuffix()}_${adapter}_event`,
        handleTableName: `mcp_adm_${uniqueSuffix()}_${adapter}_handle`,
      };
      let dataSource: DataSource;

      beforeAll(async () => {
        dataSource = await openMigrated(
          target.options(),
          [createMcpSessionMigration(tables), createMcpSessionHandleMigration(tables)],
          `${tables.tableName}_migrations`,
        );
      }, 60_000);

      afterAll(() => dropMigrated(dataSource), 60_000);

      it('an evicted session is deleted from the database: no process rebuilds it, and its client re-initializes', async () => {
        await expectEvictionEverywhere(new TypeOrmMcpSessionStore(dataSource, tables));
      });
    },
  );
});
