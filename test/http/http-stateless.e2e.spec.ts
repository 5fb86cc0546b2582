import type { INestApplication } from '@nestjs/common';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { connectClient, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { HTTP_ADAPTERS, listenApp, type HttpAdapterName } from '../utils/test-app.js';

async function startApp(singleTenant: boolean, adapter: HttpAdapterName): Promise<{ app: INestApplication; url: URL }> {
  const app = await listenApp([billingModule({ transports: { http: { path: '/mcp', stateless: true, singleTenant } } })], { adapter });
  return { app, url: await mcpUrl(app) };
}

describe.each(HTTP_ADAPTERS)('stateless Streamable HTTP on %s', (adapter) => {
  let app: INestApplication;
  let url: URL;
  let agent: TestClient;

  afterEach(async () => {
    await agent?.close();
    await app.close();
  });

  describe('multi-tenant (default)', () => {
    beforeEach(async () => {
      ({ app, url } = await startApp(false, adapter));
      agent = await connectClient(url);
    });

    it('has no session id and answers GET with 405', async () => {
      expect(agent.transport.sessionId).toBeUndefined();
      const response = await fetch(url, { headers: { accept: 'text/event-stream' } });
      expect(response.status).toBe(405);
    });

    it('lists handle-keyed tools and unbound tools, hides session-keyed bound tools', async () => {
      expect((await agent.names()).sort()).toEqual(
        ['invoice.status', 'payment.authorize', 'payment.capture', 'payment.receipt', 'payment.refund', 'payment.void'].sort(),
      );
    });

    it('refuses session-keyed tools with NO_SESSION instead of sharing one instance', async () => {
      const result = await agent.call('invoice.submit');
      expect(result._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'NO_SESSION', tool: 'invoice.submit' });
      expect(textOf(result)).toMatch(/^NO_SESSION: "invoice.submit" keeps invoice state per session/);
      expect(app.get(HandlerLog).count('invoice.submit')).toBe(0);
    });

    it('gates handle-keyed tools by the handle, across connections', async () => {
      const started = await agent.call('payment.authorize', { amount: 5, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };
      const other = await connectClient(url);
      try {
        const refund = await other.call('payment.refund', { paymentId });
        expect(refund._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'FORBIDDEN', state: 'authorized' });
        const capture = await other.call('payment.capture', { paymentId });
        expect(capture.isError).toBeFalsy();
        expect(capture._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'captured' });
        // Every handle-keyed tool is always listed on stateless HTTP: the menu did not change.
        expect(other.listChanged()).toBe(0);
      } finally {
        await other.close();
      }
    });
  });

  describe('single-tenant', () => {
    beforeEach(async () => {
      ({ app, url } = await startApp(true, adapter));
      agent = await connectClient(url);
    });

    it('keeps session-keyed state in the one in-process attachment', async () => {
      expect(await agent.names()).toContain('invoice.submit');
      await agent.call('invoice.submit');
      const second = await connectClient(url);
      try {
        expect(agent.listChanged()).toBe(1);
        expect(await second.names()).toContain('invoice.approve');
      } finally {
        await second.close();
      }
    });
  });
});
