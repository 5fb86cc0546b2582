import type { INestApplication } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/client';
import type { IncomingMessage } from 'node:http';
import { billingModule } from '../fixtures/billing.app.js';
import { BillingPrimitives, InvoicePrimitives, PaymentPrimitives } from '../fixtures/billing.primitives.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { listenApp } from '../utils/test-app.js';

/** `Bearer <name>` is the caller <name>; no header is anonymous. */
const authenticate = (req: IncomingMessage) => {
  const name = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
  return name ? { token: name, clientId: name, scopes: [] } : undefined;
};

type Gate = { machine: string; state: string; allowedTools: string[] };
const gateOf = (result: { _meta?: Record<string, unknown> }) => result._meta?.['nestjs-mcp-fsm/state'] as Gate | undefined;
const errorOf = (result: { _meta?: Record<string, unknown> }) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined;
const textOf = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';

describe('both protocol eras on one endpoint', () => {
  let app: INestApplication;
  let url: URL;
  const modern: Client[] = [];
  const legacy: TestClient[] = [];

  const modernClient = async (headers?: Record<string, string>) => {
    const client = await connectModernClient(url, headers);
    modern.push(client);
    return client;
  };

  beforeAll(async () => {
    const module = billingModule({ auth: { fromRequest: authenticate }, transports: { http: { direct: true } } });
    module.providers!.push(InvoicePrimitives, PaymentPrimitives, BillingPrimitives);
    app = await listenApp([module]);
    url = await mcpUrl(app);
  });

  afterAll(async () => {
    await Promise.all([...modern.map((client) => client.close()), ...legacy.map((client) => client.close())]);
    await app.close();
  });

  it('serves a client pinned to 2026-07-28: discovery, then the same lists for everyone, with cache hints', async () => {
    const alice = await modernClient({ authorization: 'Bearer alice' });
    const anonymous = await modernClient();
    expect(alice.getProtocolEra()).toBe('modern');
    expect(alice.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(alice.getDiscoverResult()).toMatchObject({
      supportedVersions: ['2026-07-28'],
      capabilities: { tools: {}, prompts: {}, resources: {} },
    });

    const first = await alice.listTools();
    const second = await anonymous.listTools();
    expect(second.tools).toEqual(first.tools);
    expect(first.tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['invoice.submit', 'invoice.approve', 'payment.authorize', 'payment.capture']),
    );
    expect(first).toMatchObject({ ttlMs: 300_000, cacheScope: 'public' });
    const authorize = first.tools.find((tool) => tool.name === 'payment.authorize');
    expect(authorize?.description).toContain('stays valid until the payment workflow ends');
    expect((await alice.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['invoice.review-checklist', 'payment.dispute']);
  });

  it('runs the invoice per authenticated principal: gated calls, refusals, state and allowed tools in every result', async () => {
    const alice = await modernClient({ authorization: 'Bearer alice' });
    const early = await alice.callTool({ name: 'invoice.approve', arguments: {} });
    expect(early.isError).toBe(true);
    expect(errorOf(early)).toMatchObject({ code: 'FORBIDDEN' });

    const submitted = await alice.callTool({ name: 'invoice.submit', arguments: {} });
    expect(gateOf(submitted)).toMatchObject({
      machine: 'invoice',
      state: 'review',
      allowedTools: expect.arrayContaining(['invoice.approve']),
    });
    // Another request of the same principal (no session) finds the same invoice.
    const again = await modernClient({ authorization: 'Bearer alice' });
    const approved = await again.callTool({ name: 'invoice.approve', arguments: {} });
    expect(gateOf(approved)).toMatchObject({ state: 'approved' });

    const bob = await modernClient({ authorization: 'Bearer bob' });
    expect(errorOf(await bob.callTool({ name: 'invoice.approve', arguments: {} }))).toMatchObject({ code: 'FORBIDDEN' });

    const anonymous = await modernClient();
    const refused = await anonymous.callTool({ name: 'invoice.submit', arguments: {} });
    expect(errorOf(refused)).toMatchObject({ code: 'NO_SESSION' });
    expect(textOf(refused)).toContain('MCP 2026-07-28 has no sessions');
  });

  it('runs the payment by its handle, the same as in the 2025 era', async () => {
    const client = await modernClient();
    const started = await client.callTool({ name: 'payment.authorize', arguments: { amount: 8, currency: 'EUR' } });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect(gateOf(started)).toMatchObject({ machine: 'payment', state: 'authorized' });
    const captured = await client.callTool({ name: 'payment.capture', arguments: { paymentId } });
    expect(gateOf(captured)).toMatchObject({ state: 'captured', allowedTools: expect.arrayContaining(['payment.refund']) });
    const twice = await client.callTool({ name: 'payment.capture', arguments: { paymentId } });
    expect(errorOf(twice)).toMatchObject({ code: 'FORBIDDEN' });
    const receipt = await client.readResource({ uri: `payment://${paymentId}/receipt` });
    expect(JSON.parse((receipt.contents[0] as { text: string }).text)).toMatchObject({ paymentId, state: 'captured' });
    // SEP-2164: an unknown resource is -32602 naming the URI.
    await expect(client.readResource({ uri: 'billing://nothing' })).rejects.toMatchObject({
      code: -32602,
      data: { uri: 'billing://nothing' },
    });
  });

  it('keeps per-session menus and list_changed for a 2025-11-25 client on the same endpoint', async () => {
    const agent = await connectClient(url);
    legacy.push(agent);
    expect(await agent.names()).not.toContain('invoice.approve');
    await agent.call('invoice.submit');
    await eventually(() => agent.listChanged() === 1);
    expect(await agent.names()).toContain('invoice.approve');
  });

  it('answers 2026 requests that break the revision with its errors, and keeps the request id', async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    };
    const mismatch = await post(
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'invoice.approve' },
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'invoice.submit', arguments: {}, _meta: envelope } },
    );
    expect(mismatch.status).toBe(400);
    expect(await mismatch.json()).toMatchObject({ id: 7, error: { code: -32020 } });
    const removed = await post(
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'logging/setLevel' },
      {
        jsonrpc: '2.0',
        id: 8,
        method: 'logging/setLevel',
        params: { level: 'debug', _meta: envelope },
      },
    );
    expect(await removed.json()).toMatchObject({ id: 8, error: { code: -32601 } });
  });
});

describe('protocolEras', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  };
  const post = (url: URL, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });

  it("['2025-11-25'] serves 2025 sessions only: a 2026-07-28 client cannot discover the server", async () => {
    const app = await listenApp([billingModule({ transports: { http: { protocolEras: ['2025-11-25'] } } })]);
    const url = await mcpUrl(app);
    try {
      await expect(connectModernClient(url)).rejects.toThrow();
      const agent = await connectClient(url);
      expect(await agent.names()).toContain('invoice.submit');
      await agent.close();
    } finally {
      await app.close();
    }
  });

  it("['2026-07-28'] serves 2026-07-28 only: an initialize is refused with a message that says why", async () => {
    const app = await listenApp([billingModule({ transports: { http: { protocolEras: ['2026-07-28'] } } })]);
    const url = await mcpUrl(app);
    try {
      const refused = await post(url, initialize);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ id: 1, error: { message: expect.stringContaining('speaks protocol 2026-07-28 only') } });
      const client = await connectModernClient(url);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      await app.close();
    }
  });
});
