import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { FsmCall, FsmStateGuard, FsmTransitionInterceptor } from '../lib/index.js';
import { billingModule } from './fixtures/billing.app.js';
import { connectClient, mcpUrl, textOf, type TestClient } from './utils/http-client.js';

const audit: string[] = [];

/** An audit hook: records every stored transition, then lets the gate store it. */
@Injectable()
class AuditingInterceptor extends FsmTransitionInterceptor {
  protected override async completeTransition(call: FsmCall): Promise<void> {
    await super.completeTransition(call);
    audit.push(`${call.tool.name}: ${call.context.state} -> ${call.nextState}`);
  }
}

/** A freeze switch: refuses every claim of the payment machine while payments are frozen. */
@Injectable()
class FreezingGuard extends FsmStateGuard {
  static frozen = false;

  protected override async admitBound(call: FsmCall): Promise<void> {
    if (FreezingGuard.frozen && call.tool.binding?.machine === 'payment') {
      throw new Error('payments are frozen');
    }
    await super.admitBound(call);
  }
}

describe('subclassed gate pieces', () => {
  let app: INestApplication;
  let agent: TestClient;

  beforeEach(async () => {
    audit.length = 0;
    FreezingGuard.frozen = false;
    const moduleRef = await Test.createTestingModule({
      imports: [billingModule({ stateGuard: FreezingGuard, transitionInterceptor: AuditingInterceptor })],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('runs the options\' interceptor subclass around every transition', async () => {
    await agent.call('invoice.submit');
    await agent.call('invoice.approve');
    expect(audit).toEqual(['invoice.submit: draft -> review', 'invoice.approve: review -> approved']);
  });

  it('runs the options\' guard subclass, whose refusals fail closed', async () => {
    const started = await agent.call('payment.authorize', { amount: 1, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    FreezingGuard.frozen = true;
    const frozen = await agent.call('payment.capture', { paymentId });
    expect(frozen._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE' });
    expect(textOf(frozen)).toMatch(/payments are frozen/);
    FreezingGuard.frozen = false;
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
  });
});
