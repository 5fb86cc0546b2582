import type { INestApplication } from '@nestjs/common';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  InMemoryFsmStateStore,
  InMemoryMcpSessionStore,
  McpSessionStore,
  type McpSessionOptions,
  type McpSessionStore as SessionStore,
} from '../../lib/index.js';
import { CreateMcpSessionHandles1764806400000, CreateMcpSessions1764633600000, TypeOrmMcpSessionStore } from '../../lib/typeorm.js';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, eventually, mcpUrl, postMcp, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../utils/round-robin-proxy.js';
import { HTTP_ADAPTERS, listenApp } from '../utils/test-app.js';

/** Reads an SSE response until `done` holds for what arrived; the reader is cancelled after. */
async function readEvents(response: Response, done: (text: string) => boolean, timeoutMs = 3000): Promise<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = setTimeout(() => void reader.cancel(), timeoutMs);
  try {
    while (!done(text)) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

describe.each(HTTP_ADAPTERS)('sessions served by any process sharing the session store, on %s', (adapter) => {
  let sessionStore: SessionStore;
  let store: InMemoryFsmStateStore;
  let apps: INestApplication[];
  let proxy: RoundRobinProxy;
  let clients: TestClient[];

  const startApp = (sessions: McpSessionOptions = {}) =>
    listenApp([billingModule({ store, transports: { http: { sessions: { ...sessions, store: sessionStore } } } })], { adapter });

  beforeEach(async () => {
    sessionStore = new InMemoryMcpSessionStore();
    store = new InMemoryFsmStateStore();
    apps = [await startApp(), await startApp()];
    proxy = await startRoundRobinProxy(await Promise.all(apps.map((app) => mcpUrl(app))));
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await proxy.close();
    await Promise.all(apps.map((app) => app.close()));
    store.onApplicationShutdown();
  });

  it('completes the invoice workflow with requests alternating between two processes, told of every change', async () => {
    const client = await connectClient(proxy.url);
    clients.push(client);
    const steps: [string, string[]][] = [
      ['invoice.submit', ['invoice.approve', 'invoice.reject']],
      ['invoice.approve', ['invoice.discharge']],
      ['invoice.discharge', []],
    ];
    for (const [tool, next] of steps) {
      const before = client.listChanged();
      expect((await client.call(tool)).isError).toBeFalsy();
      await eventually(() => client.listChanged() > before);
      const names = await client.names();
      for (const name of next) expect(names).toContain(name);
      expect(names).not.toContain(tool);
    }
    const posts = proxy.log.filter((line) => line.startsWith('POST'));
    expect(new Set(posts)).toEqual(new Set(['POST 0', 'POST 1']));
    expect(apps.every((app) => app.get(McpSessionStore) === sessionStore)).toBe(true);
  });

  it('continues a session after both processes restarted, with the same session id and no new initialize', async () => {
    // Sessions in the in-memory store end with their process: restarts need a database.
    const dir = mkdtempSync(join(tmpdir(), 'mcp-sessions-'));
    const database = new DataSource({
      type: 'better-sqlite3',
      database: join(dir, 'sessions.sqlite'),
      migrations: [CreateMcpSessions1764633600000, CreateMcpSessionHandles1764806400000],
    });
    await database.initialize();
    await database.runMigrations();
    sessionStore = new TypeOrmMcpSessionStore(database);
    await Promise.all(apps.map((app) => app.close()));
    apps = [await startApp(), await startApp()];
    proxy.setTargets(await Promise.all(apps.map((app) => mcpUrl(app))));
    const client = await connectClient(proxy.url);
    clients.push(client);
    await client.call('invoice.submit');
    const sessionId = client.transport.sessionId;
    await Promise.all(apps.map((app) => app.close()));
    apps = [await startApp(), await startApp()];
    proxy.setTargets(await Promise.all(apps.map((app) => mcpUrl(app))));
    expect(await client.names()).toContain('invoice.approve');
    expect((await client.call('invoice.approve')).isError).toBeFalsy();
    expect(await client.names()).toContain('invoice.discharge');
    expect(client.transport.sessionId).toBe(sessionId);
    await client.close();
    await Promise.all(apps.map((app) => app.close()));
    apps = [];
    await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ends a deleted session on every process, with its session-keyed instance', async () => {
    const client = await connectClient(proxy.url);
    await client.call('invoice.submit');
    const sessionId = client.transport.sessionId!;
    expect(await store.load(`invoice:session:${sessionId}`)).toBeDefined();
    await client.transport.terminateSession();
    await client.close();
    // The other process notices within a second (it checks the store at most once a second per session).
    for (const app of apps) {
      const status = async () =>
        (
          await postMcp(
            await mcpUrl(app),
            { jsonrpc: '2.0', id: 2, method: 'tools/list' },
            { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
          )
        ).status;
      await eventually(async () => (await status()) === 404, 3000);
    }
    expect(await sessionStore.find(sessionId)).toBeUndefined();
    expect(await store.load(`invoice:session:${sessionId}`)).toBeUndefined();
  });

  it('ends a session idle on every process after the TTL, with its session-keyed instance', async () => {
    await Promise.all(apps.map((app) => app.close()));
    apps = [await startApp({ idleTtlMs: 300 }), await startApp({ idleTtlMs: 300 })];
    proxy.setTargets(await Promise.all(apps.map((app) => mcpUrl(app))));
    const client = await connectClient(proxy.url);
    clients.push(client);
    await client.call('invoice.submit');
    await client.names();
    const sessionId = client.transport.sessionId!;
    await eventually(async () => (await sessionStore.find(sessionId)) === undefined, 3000);
    expect(await store.load(`invoice:session:${sessionId}`)).toBeUndefined();
    await expect(client.names()).rejects.toThrow(/404|not found/);
  });

  it('answers 503 with Retry-After to an initialize whose session cannot be recorded, and opens sessions again once the store is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-sessions-'));
    const database = new DataSource({
      type: 'better-sqlite3',
      database: join(dir, 'sessions.sqlite'),
      migrations: [CreateMcpSessions1764633600000, CreateMcpSessionHandles1764806400000],
    });
    await database.initialize();
    await database.runMigrations();
    sessionStore = new TypeOrmMcpSessionStore(database);
    const app = await startApp();
    apps.push(app);
    await database.destroy();
    const refused = await postMcp(await mcpUrl(app), RAW_INITIALIZE);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('mcp-session-id')).toBeNull();
    expect(await refused.text()).not.toMatch(/sqlite|database/i);
    await database.initialize();
    const opened = await postMcp(await mcpUrl(app), RAW_INITIALIZE);
    expect(opened.status).toBe(200);
    expect(await sessionStore.find(opened.headers.get('mcp-session-id')!)).toBeDefined();
    await opened.text();
    await app.close();
    apps.pop();
    await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a stored session of another principal as an unknown one (404), and leaves it alone', async () => {
    const opened = await postMcp(proxy.url, RAW_INITIALIZE);
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const record = await sessionStore.find(sessionId);
    await sessionStore.create({ ...record!, id: 'someone-elses', principal: 'alice' });
    const response = await postMcp(
      await mcpUrl(apps[1]),
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { 'mcp-session-id': 'someone-elses', 'mcp-protocol-version': '2025-06-18' },
    );
    expect(response.status).toBe(404);
    expect(await sessionStore.find('someone-elses')).toBeDefined();
  });

  it('gives a GET stream that reconnects with Last-Event-ID, on the other process, the list_changed it missed', async () => {
    const owner = await connectClient(await mcpUrl(apps[0]));
    clients.push(owner);
    const { paymentId } = (await owner.call('payment.authorize', { amount: 5, currency: 'EUR' })).structuredContent as {
      paymentId: string;
    };
    const opened = await postMcp(await mcpUrl(apps[0]), RAW_INITIALIZE);
    const sessionId = opened.headers.get('mcp-session-id')!;
    await opened.text();
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    await (await postMcp(await mcpUrl(apps[0]), { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)).text();
    await (
      await postMcp(
        await mcpUrl(apps[0]),
        { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId } } },
        headers,
      )
    ).text();
    const aborts = new AbortController();
    const stream = await fetch(String(await mcpUrl(apps[0])), {
      headers: { accept: 'text/event-stream', ...headers },
      signal: aborts.signal,
    });
    await owner.call('payment.capture', { paymentId });
    const first = await readEvents(stream, (text) => text.includes('list_changed'));
    const firstId = /^id: (\S+)$/m.exec(first)![1];
    aborts.abort();
    await owner.call('payment.refund', { paymentId });
    await eventually(async () => (await sessionStore.eventsAfter(sessionId, firstId.slice(1)))!.length > 0);
    const aborts2 = new AbortController();
    const resumed = await fetch(String(await mcpUrl(apps[1])), {
      headers: { accept: 'text/event-stream', ...headers, 'last-event-id': firstId },
      signal: aborts2.signal,
    });
    expect(resumed.status).toBe(200);
    const missed = await readEvents(resumed, (text) => text.includes('list_changed'));
    expect(missed).toMatch(/^id: g\d+$/m);
    expect(/^id: (\S+)$/m.exec(missed)![1]).not.toBe(firstId);
    aborts2.abort();
  });
});
