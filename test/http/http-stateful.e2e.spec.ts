import type { INestApplication } from '@nestjs/common';
import { CallToolResultSchema, type McpError } from '@modelcontextprotocol/sdk/types.js';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import {
  connectClient,
  eventually,
  internalErrorText,
  mcpUrl,
  postMcp,
  RAW_INITIALIZE,
  textOf,
  type TestClient,
} from '../utils/http-client.js';
import { HTTP_ADAPTERS, listenApp } from '../utils/test-app.js';

describe.each(HTTP_ADAPTERS)('stateful Streamable HTTP on %s', (adapter) => {
  let app: INestApplication;
  let url: URL;
  let clients: TestClient[];

  const connect = async () => {
    const client = await connectClient(url);
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    app = await listenApp([billingModule()], { adapter });
    url = await mcpUrl(app);
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('shows each state its own menu and moves through the workflow', async () => {
    const agent = await connect();
    expect(await agent.names()).toEqual(['invoice.submit', 'invoice.status', 'payment.authorize']);
    await agent.call('invoice.submit');
    expect(await agent.names()).toEqual(['invoice.approve', 'invoice.reject', 'invoice.status', 'payment.authorize']);
    await agent.call('invoice.approve');
    expect(await agent.names()).toEqual(['invoice.discharge', 'invoice.status', 'payment.authorize']);
  });

  it('refuses a hidden tool with FORBIDDEN and the allowed actions, without running it', async () => {
    const agent = await connect();
    const result = await agent.call('invoice.discharge');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe(
      'FORBIDDEN: "invoice.discharge" is not available while invoice is "draft". Allowed now: invoice.submit, invoice.status.',
    );
    expect(result._meta?.['nestjs-mcp-fsm/error']).toEqual({
      code: 'FORBIDDEN',
      tool: 'invoice.discharge',
      machine: 'invoice',
      state: 'draft',
      allowedTools: ['invoice.submit', 'invoice.status'],
      errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(app.get(HandlerLog).count('invoice.discharge')).toBe(0);
  });

  it('sends list_changed after a transition, and carries the new state in _meta', async () => {
    const agent = await connect();
    await agent.names();
    const result = await agent.call('invoice.submit');
    expect(result._meta?.['nestjs-mcp-fsm/state']).toEqual({
      machine: 'invoice',
      state: 'review',
      allowedTools: ['invoice.approve', 'invoice.reject', 'invoice.status'],
    });
    await eventually(() => agent.listChanged() === 1);
  });

  it('keeps sessions independent', async () => {
    const first = await connect();
    const second = await connect();
    await first.call('invoice.submit');
    expect(await first.names()).toContain('invoice.approve');
    expect(await second.names()).toContain('invoice.submit');
    expect(second.listChanged()).toBe(0);
  });

  it('shows the compact description only in the initial state', async () => {
    const agent = await connect();
    const describe = async () => (await agent.client.listTools()).tools.find((tool) => tool.name === 'invoice.status')?.description;
    expect(await describe()).toBe('Invoice status');
    await agent.call('invoice.submit');
    expect(await describe()).toMatch(/^Show the invoice/);
  });

  it('fires no transition when the handler throws or returns isError', async () => {
    const agent = await connect();
    const log = app.get(HandlerLog);
    await agent.call('invoice.submit');
    log.failNext = 'isError';
    const refused = await agent.call('invoice.approve');
    expect(refused.isError).toBe(true);
    expect(await agent.names()).toContain('invoice.approve');
    log.failNext = 'throw';
    const thrown = await agent.call('invoice.reject');
    expect(thrown.isError).toBe(true);
    expect(textOf(thrown)).toMatch(internalErrorText('invoice.reject'));
    expect(textOf(thrown)).not.toContain('on purpose');
    expect(await agent.names()).toContain('invoice.reject');
  });

  it('runs the payment handle flow and refuses forged handles', async () => {
    const agent = await connect();
    const started = await agent.call('payment.authorize', { amount: 12.5, currency: 'EUR' });
    const paymentId = (started.structuredContent as { paymentId: string }).paymentId;
    expect(paymentId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect((started.structuredContent as { handleSeen: string }).handleSeen).toBe(paymentId);
    expect(await agent.names()).toEqual(expect.arrayContaining(['payment.capture', 'payment.void', 'payment.authorize']));
    const forged = await agent.call('payment.capture', { paymentId: 'AAAAAAAAAAAAAAAAAAAAAA' });
    expect(forged._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    const malformed = await agent.call('payment.capture', { paymentId: "x' OR 1=1" });
    expect(malformed._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    const captured = await agent.call('payment.capture', { paymentId });
    expect(captured.structuredContent).toEqual({ captured: paymentId, from: 'authorized' });
    const again = await agent.call('payment.capture', { paymentId });
    expect(again._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'captured' });
    expect(app.get(HandlerLog).count('payment.capture')).toBe(1);
  });

  it('runs one of 20 concurrent captures on one handle', async () => {
    const agent = await connect();
    const started = await agent.call('payment.authorize', { amount: 10, currency: 'USD' });
    const paymentId = (started.structuredContent as { paymentId: string }).paymentId;
    app.get(HandlerLog).delayMs = 20;
    const results = await Promise.all(Array.from({ length: 20 }, () => agent.call('payment.capture', { paymentId })));
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(app.get(HandlerLog).count('payment.capture')).toBe(1);
  });

  it('opens a GET stream at once, before anything is sent on it', async () => {
    const initialized = await postMcp(url, RAW_INITIALIZE);
    const session = { 'mcp-session-id': initialized.headers.get('mcp-session-id')! };
    await initialized.body?.cancel();
    await (await postMcp(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, session)).text();
    // fetch settles on the response head: a head held back until the first event would hang here.
    const stream = await fetch(url, { headers: { accept: 'text/event-stream', ...session } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await stream.body?.cancel();
  });

  it('answers an unknown tool with a JSON-RPC error naming it', async () => {
    const agent = await connect();
    await expect(agent.call('invoice.teleport')).rejects.toThrow(
      'Unknown tool "invoice.teleport". Call tools/list for the tools available now.',
    );
  });

  it('answers a malformed tools/call with -32602 in plain words, not a schema dump', async () => {
    const agent = await connect();
    const send = (params: unknown) =>
      agent.client.request({ method: 'tools/call', params } as never, CallToolResultSchema).then(
        () => undefined,
        (error: unknown) => error as McpError,
      );
    const noName = await send({ arguments: {} });
    expect(noName?.code).toBe(-32602);
    expect(noName?.message).toBe(
      'MCP error -32602: Invalid tools/call request: "params.name" must be the name of a tool (a non-empty string).',
    );
    const listArguments = await send({ name: 'invoice.submit', arguments: [1, 2] });
    expect(listArguments?.code).toBe(-32602);
    expect(listArguments?.message).toBe(
      'MCP error -32602: Invalid tools/call request for "invoice.submit": "params.arguments" must be an object of named arguments.',
    );
    expect(app.get(HandlerLog).count('invoice.submit')).toBe(0);
  });

  it('rejects invalid arguments with a message naming them', async () => {
    const agent = await connect();
    const result = await agent.call('payment.authorize', { amount: -1, currency: 'EURO' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Invalid arguments for "payment.authorize": amount: .*; currency: /);
  });
});
