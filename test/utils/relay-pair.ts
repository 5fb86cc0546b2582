import type { INestApplication } from '@nestjs/common';
import type { McpModuleOptions } from '../../lib/index.js';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, eventually, mcpUrl, type TestClient } from './http-client.js';
import { listenApp } from './test-app.js';

/** What one app of a relay pair shares with the other: the state store, and a relay of its own. */
export type RelayPairInstance = Required<Pick<McpModuleOptions, 'store' | 'transitionRelay'>>;

/**
 * Starts two billing apps, `first()` and then `second()`, and checks that a capture on the second
 * reaches the session that authorized the payment on the first: one list_changed there and the
 * tools of a captured payment, nothing for another session on the first. Closes its clients and
 * apps before it returns; what `first` and `second` opened stays the caller's to close.
 */
export async function expectTransitionRelayed(
  first: () => Promise<RelayPairInstance>,
  second: () => Promise<RelayPairInstance> = first,
): Promise<void> {
  const apps: INestApplication[] = [];
  const clients: TestClient[] = [];
  const startInstance = async (instance: () => Promise<RelayPairInstance>) => {
    const app = await listenApp([billingModule(await instance())]);
    apps.push(app);
    return mcpUrl(app);
  };
  const connect = async (at: URL) => {
    const client = await connectClient(at);
    clients.push(client);
    return client;
  };
  try {
    const [urlA, urlB] = [await startInstance(first), await startInstance(second)];
    const owner = await connect(urlA);
    const bystander = await connect(urlA);
    const started = await owner.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect(await owner.names()).toContain('payment.capture');
    await bystander.names();
    const before = owner.listChanged();

    const elsewhere = await connect(urlB);
    expect((await elsewhere.call('payment.capture', { paymentId })).isError).toBeFalsy();

    await eventually(() => owner.listChanged() === before + 1, 5000);
    expect(await owner.names()).toEqual(expect.arrayContaining(['payment.refund', 'payment.receipt']));
    expect(await owner.names()).not.toContain('payment.capture');
    expect(bystander.listChanged()).toBe(0);
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(apps.map((app) => app.close()));
  }
}
