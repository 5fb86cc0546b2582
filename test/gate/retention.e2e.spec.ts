import type { INestApplication } from '@nestjs/common';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, eventually, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

describe('retention', () => {
  let app: INestApplication;
  let agent: TestClient;

  beforeAll(async () => {
    app = await listenApp([billingModule({ gate: { retention: { finishedMs: 100, idleHandleMs: 1_500, intervalMs: 50 } } })]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterAll(async () => {
    await agent.close();
    await app.close();
  });

  const start = async () => {
    const started = await agent.call('payment.authorize', { amount: 4, currency: 'EUR' });
    return (started.structuredContent as { paymentId: string }).paymentId;
  };
  const errorCode = async (paymentId: string) =>
    ((await agent.call('payment.receipt', { paymentId }))._meta?.['nestjs-mcp-fsm/error'] as { code?: string } | undefined)?.code;

  it("states the handle's retention in the start tool's description", async () => {
    const { tools } = await agent.client.listTools();
    expect(tools.find((tool) => tool.name === 'payment.authorize')?.description).toContain(
      'it is deleted 100 milliseconds after the payment workflow ends, and expires after 1500 milliseconds without a transition.',
    );
  });

  it('deletes a finished payment after the retention, and a live one only once it has been idle too long', async () => {
    const voided = await start();
    await agent.call('payment.void', { paymentId: voided });
    const live = await start();
    await agent.call('payment.capture', { paymentId: live });

    await eventually(async () => (await errorCode(voided)) === 'UNKNOWN_HANDLE', 3_000);
    // The captured payment is not final and moved recently: still there.
    expect((await agent.call('payment.receipt', { paymentId: live })).isError).toBeFalsy();

    await eventually(async () => (await errorCode(live)) === 'UNKNOWN_HANDLE', 5_000);
    const expired = await agent.call('payment.refund', { paymentId: live, amount: 1 });
    expect(textOf(expired)).toContain('unknown, expired or not yours');
  });
});
