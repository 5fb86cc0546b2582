import type { INestApplication } from '@nestjs/common';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

describe('leases while a handler runs', () => {
  let app: INestApplication;
  let agent: TestClient;

  beforeEach(async () => {
    app = await listenApp([billingModule({ gate: { leaseMs: 300 } })]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('keeps the claim of a handler that runs several leases long, and stores its transition', async () => {
    const started = await agent.call('payment.authorize', { amount: 2, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const log = app.get(HandlerLog);
    log.delayMs = 1200;
    const slow = agent.call('payment.capture', { paymentId });
    await new Promise((resolve) => setTimeout(resolve, 800));
    const meanwhile = await agent.call('payment.void', { paymentId });
    expect(meanwhile._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'BUSY', state: 'authorized' });
    const captured = await slow;
    expect(captured.isError).toBeFalsy();
    expect(captured._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'captured' });
    expect(log.count('payment.void')).toBe(0);
  });
});
