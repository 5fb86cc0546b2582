import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import { billingModule } from '../fixtures/billing.app.js';
import { approvalModule } from '../fixtures/wire-approval.app.js';
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

  it('names on a decision’s span who decided (workflow.actor), the verdict, who asked and the request', async () => {
    // `Bearer <sub>;<scope>`: the principal of team acme, with the scope.
    const authenticate = (req: IncomingMessage) => {
      const [sub, ...scopes] = (req.headers.authorization?.replace(/^Bearer /, '') ?? '').split(';');
      return sub ? { token: sub, clientId: sub, scopes, extra: { claims: { org: 'acme' } } } : undefined;
    };
    app = await listenApp([approvalModule(undefined, { auth: { fromRequest: authenticate } })]);
    const alice = await connectClient(await mcpUrl(app), { authorization: 'Bearer alice' });
    const bob = await connectClient(await mcpUrl(app), { authorization: 'Bearer bob;wires:approve' });
    agents.push(alice, bob);
    const { wireId } = (await alice.call('wire.open')).structuredContent as { wireId: string };
    const { requestId } = (await alice.call('wire.send', { wireId, amount: 50 })).structuredContent as { requestId: string };
    expect((await bob.call('wire.approve', { wireId, requestId })).isError).toBeFalsy();
    const [approved] = sdk.named('tools/call wire.approve');
    expect(approved.attributes).toMatchObject({
      'workflow.actor': 'bob',
      'workflow.approval.verdict': 'approved',
      'workflow.approval.requested_by': 'alice',
      'workflow.approval.request_id': requestId,
      'workflow.state.from': 'awaiting',
      'workflow.state.to': 'sent',
    });
    expect(sdk.named('tools/call wire.send')[0].attributes).not.toHaveProperty('workflow.approval.verdict');
  });
});
