import type { INestApplication } from '@nestjs/common';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { billingModule } from '../fixtures/billing.app.js';
import { flatPaymentMachine, invoiceMachine } from '../fixtures/billing.machines.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { FlakyFsmStateStore } from '../fixtures/flaky-fsm-state.store.js';
import { connectClient, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

describe('a plain load/save store (the seed interface)', () => {
  let app: INestApplication;
  let store: FlakyFsmStateStore;
  let log: HandlerLog;
  let agent: TestClient;

  const unavailable = (tool: string, machine: string) => ({
    code: 'STATE_UNAVAILABLE',
    tool,
    machine,
    state: null,
    allowedTools: [],
    errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
  });
  const sessionKey = () => `invoice:session:${agent.transport.sessionId}`;
  const startPayment = async () => {
    const started = await agent.call('payment.authorize', { amount: 20, currency: 'EUR' });
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { paymentId: string }).paymentId;
  };

  beforeEach(async () => {
    store = new FlakyFsmStateStore();
    // A plain store keeps no timers: the payment machine without the sample's deadline (a machine with `after` needs a timer store).
    app = await listenApp([billingModule({ store, machines: [invoiceMachine, flatPaymentMachine], engine: 'table' })]);
    log = app.get(HandlerLog);
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  describe('fails closed while the store is down', () => {
    it('answers a session-keyed gated call with STATE_UNAVAILABLE, without running the handler', async () => {
      store.down = 'all';
      const result = await agent.call('invoice.submit');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'STATE_UNAVAILABLE: the state of invoice could not be read, so "invoice.submit" did not run. Try again later.',
      );
      expect(result._meta?.['nestjs-mcp-fsm/error']).toEqual(unavailable('invoice.submit', 'invoice'));
      expect(log.count('invoice.submit')).toBe(0);
    });

    it('answers a handle-keyed gated call with STATE_UNAVAILABLE, without running the handler', async () => {
      const paymentId = await startPayment();
      store.down = 'all';
      const result = await agent.call('payment.capture', { paymentId });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'STATE_UNAVAILABLE: the state of payment could not be read, so "payment.capture" did not run. Try again later.',
      );
      expect(result._meta?.['nestjs-mcp-fsm/error']).toEqual(unavailable('payment.capture', 'payment'));
      expect(log.count('payment.capture')).toBe(0);
      expect(store.peek(`payment:${paymentId}`)).toBe('authorized');
    });

    // Design §6: store down → fail closed, handler not run. A start tool's handler has
    // business effects too (it authorizes a payment), and its handle would be lost.
    it('answers a start tool with STATE_UNAVAILABLE, without running the handler', async () => {
      store.down = 'all';
      const result = await agent.call('payment.authorize', { amount: 20, currency: 'EUR' });
      expect(result.isError).toBe(true);
      expect(result._meta?.['nestjs-mcp-fsm/error']).toEqual(unavailable('payment.authorize', 'payment'));
      expect(log.count('payment.authorize')).toBe(0);
    });

    it('fails a status read closed too: the read goes through the gate, and no driver text reaches the model', async () => {
      const status = await agent.call('invoice.status');
      expect(status.structuredContent).toEqual({ tool: 'invoice.status', session: agent.transport.sessionId });
      store.down = 'all';
      const refused = await agent.call('invoice.status');
      expect(refused._meta?.['nestjs-mcp-fsm/error']).toEqual(unavailable('invoice.status', 'invoice'));
      expect(textOf(refused)).not.toContain('database went away');
    });

    it('refuses tools/list with a STATE_UNAVAILABLE error rather than a guessed menu', async () => {
      store.down = 'all';
      const error = await agent.client.listTools().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).message).toContain(
        'STATE_UNAVAILABLE: tools/list could not be answered because workflow state could not be read; try again later.',
      );
    });

    it('reports a transition that ran but could not be stored, and stores nothing', async () => {
      store.down = 'save';
      const result = await agent.call('invoice.submit');
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(
        'STATE_UNAVAILABLE: "invoice.submit" ran, but the new state of invoice could not be stored. Check its status before retrying.',
      );
      expect(result._meta?.['nestjs-mcp-fsm/error']).toEqual(unavailable('invoice.submit', 'invoice'));
      expect(log.count('invoice.submit')).toBe(1);
      expect(store.peek(sessionKey())).toBeUndefined();
    });
  });

  describe('recovers without a restart', () => {
    it('serves gated calls again once the store is back', async () => {
      const paymentId = await startPayment();
      store.down = 'all';
      expect((await agent.call('invoice.submit'))._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE' });
      expect((await agent.call('payment.capture', { paymentId }))._meta?.['nestjs-mcp-fsm/error']).toMatchObject({
        code: 'STATE_UNAVAILABLE',
      });
      expect((await agent.call('invoice.submit'))._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE' });

      store.down = false;
      const submitted = await agent.call('invoice.submit');
      expect(submitted.isError).toBeFalsy();
      expect(submitted._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ machine: 'invoice', state: 'review' });
      expect(store.peek(sessionKey())).toBe('review');
      const captured = await agent.call('payment.capture', { paymentId });
      expect(captured.structuredContent).toEqual({ captured: paymentId, from: 'authorized' });
      expect(store.peek(`payment:${paymentId}`)).toBe('captured');
      const menu = await agent.names();
      expect(menu).toEqual(
        expect.arrayContaining(['invoice.approve', 'invoice.reject', 'invoice.status', 'payment.refund', 'payment.authorize']),
      );
      expect(menu).not.toContain('invoice.submit');
      expect(menu).not.toContain('payment.capture');
      expect(log.count('invoice.submit')).toBe(1);
      expect(log.count('payment.capture')).toBe(1);
    });

    it('releases the in-process lock when a write fails, so the next call is not stuck', async () => {
      store.down = 'save';
      expect((await agent.call('invoice.submit'))._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE' });
      store.down = false;
      const submitted = await agent.call('invoice.submit');
      expect(submitted._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'review' });
    });
  });

  describe('serialises calls on one handle in process', () => {
    it('runs one of 20 concurrent captures on one payment handle', async () => {
      const paymentId = await startPayment();
      log.delayMs = 20;
      const results = await Promise.all(Array.from({ length: 20 }, () => agent.call('payment.capture', { paymentId })));
      const succeeded = results.filter((result) => !result.isError);
      expect(succeeded).toHaveLength(1);
      expect(succeeded[0].structuredContent).toEqual({ captured: paymentId, from: 'authorized' });
      for (const refused of results.filter((result) => result.isError)) {
        expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'captured' });
      }
      expect(log.count('payment.capture')).toBe(1);
      expect(store.peek(`payment:${paymentId}`)).toBe('captured');
    });

    it('runs one of 20 concurrent submits on one session', async () => {
      log.delayMs = 20;
      const results = await Promise.all(Array.from({ length: 20 }, () => agent.call('invoice.submit')));
      expect(results.filter((result) => !result.isError)).toHaveLength(1);
      expect(log.count('invoice.submit')).toBe(1);
      expect(store.peek(sessionKey())).toBe('review');
    });
  });
});
