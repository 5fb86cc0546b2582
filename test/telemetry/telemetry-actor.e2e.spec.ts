import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { billingModule } from '../fixtures/billing.app.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { OtelTestSdk } from '../utils/otel-test-sdk.js';
import { listenApp } from '../utils/test-app.js';

describe('telemetry names who acted (workflow.actor)', () => {
  const sdk = new OtelTestSdk();
  let app: INestApplication | undefined;
  const agents: TestClient[] = [];

  afterEach(async () => {
    await Promise.all(agents.splice(0).map((agent) => agent.close().catch(() => undefined)));
    await app?.close();
    app = undefined;
    await sdk.reset();
  });

  afterAll(() => sdk.shutdown());

  it('puts the caller’s principal on each gated call’s span, and nothing for an anonymous caller', async () => {
    // `Bearer <sub>`: the principal; no header: anonymous.
    const authenticate = (req: IncomingMessage) => {
      const sub = req.headers.authorization?.replace(/^Bearer /, '');
      return sub ? { token: sub, clientId: sub, scopes: [] } : undefined;
    };
    app = await listenApp([billingModule({ auth: { fromRequest: authenticate } })]);
    const alice = await connectClient(await mcpUrl(app), { authorization: 'Bearer alice' });
    const anonymous = await connectClient(await mcpUrl(app));
    agents.push(alice, anonymous);
    const started = await alice.call('payment.authorize', { amount: 25, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await alice.call('payment.capture', { paymentId });
    await anonymous.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const [authorized, anonymousStart] = sdk.named('tools/call payment.authorize');
    expect(authorized.attributes['workflow.actor']).toBe('alice');
    expect(sdk.named('tools/call payment.capture')[0].attributes['workflow.actor']).toBe('alice');
    expect(anonymousStart.attributes).not.toHaveProperty('workflow.actor');
  });
});
