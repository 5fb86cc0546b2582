import type { INestApplication } from '@nestjs/common';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** Time for a notification that was sent to arrive: a session beyond the bound must get none. */
const SETTLE_MS = 300;
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

describe('followers of one instance, bounded by sessions.maxFollowersPerInstance', () => {
  let app: INestApplication;
  let clients: TestClient[];

  beforeEach(async () => {
    app = await listenApp([billingModule({ transports: { http: { sessions: { maxFollowersPerInstance: 2 } } } })]);
    clients = await Promise.all([0, 1, 2, 3].map(async () => connectClient(await mcpUrl(app))));
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await app.close();
  });

  it('tells the earliest followers of a handle, still lists its tools to the others, and tells a newcomer once an earlier follower left', async () => {
    const [owner, first, second, third] = clients;
    const { paymentId } = (await owner.call('payment.authorize', { amount: 10, currency: 'EUR' })).structuredContent as {
      paymentId: string;
    };
    // A session follows a handle it passes to a tool of its workflow, a refused call included.
    for (const follower of [first, second, third]) {
      expect((await follower.call('payment.receipt', { paymentId })).isError).toBe(true);
      expect(await follower.names()).toContain('payment.capture');
    }

    const told = clients.map((client) => client.listChanged());
    expect((await owner.call('payment.capture', { paymentId })).isError).toBeFalsy();
    await eventually(() => first.listChanged() > told[1]);
    await settle();
    expect([second.listChanged(), third.listChanged()]).toEqual([told[2], told[3]]);
    // Beyond the bound a session is not told, but its list is right.
    for (const follower of [second, third]) {
      expect(await follower.names()).toEqual(expect.arrayContaining(['payment.receipt', 'payment.refund']));
    }

    await first.transport.terminateSession();
    const before = clients.map((client) => client.listChanged());
    expect((await owner.call('payment.refund', { paymentId, amount: 1 })).isError).toBeFalsy();
    await eventually(() => second.listChanged() > before[2]);
    await settle();
    expect(third.listChanged()).toBe(before[3]);
    expect(await third.names()).not.toContain('payment.receipt');
  });
});
