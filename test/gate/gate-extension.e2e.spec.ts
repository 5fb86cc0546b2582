import { Injectable, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { WorkflowGate, type WorkflowAdmission, type WorkflowCall, type WorkflowDecision, type WorkflowStored } from '../../lib/extend.js';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { connectClient, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';

const audit: string[] = [];

/**
 * One subclass of the gate, passed as the `gate.useClass` option: a freeze switch that refuses the
 * payment machine's calls with a code of its own, and an audit hook on every stored change.
 */
@Injectable()
class FreezingAuditingGate extends WorkflowGate {
  static frozen = false;

  protected override async admit(call: WorkflowCall): Promise<WorkflowAdmission> {
    const { role } = call.tool;
    if (FreezingAuditingGate.frozen && role.kind !== 'ungated' && role.machine === 'payment') {
      throw this.refusals.refuse(call, 'FROZEN', `FROZEN: payments are frozen, so "${call.tool.name}" did not run.`, role.machine);
    }
    return super.admit(call);
  }

  protected override async complete(call: WorkflowCall, admission: WorkflowAdmission, decision: WorkflowDecision): Promise<WorkflowStored> {
    const stored = await super.complete(call, admission, decision);
    audit.push(`${call.tool.name}: ${call.tool.role.kind === 'start' ? '(new)' : decision.from.state} -> ${stored.state}`);
    return stored;
  }
}

describe('a subclassed gate', () => {
  let app: INestApplication;
  let agent: TestClient;

  beforeEach(async () => {
    audit.length = 0;
    FreezingAuditingGate.frozen = false;
    const moduleRef = await Test.createTestingModule({ imports: [billingModule({ gate: { useClass: FreezingAuditingGate } })] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    agent = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await agent.close();
    await app.close();
  });

  it('runs its hook around every stored transition', async () => {
    await agent.call('invoice.submit');
    await agent.call('invoice.approve');
    expect(audit).toEqual(['invoice.submit: draft -> review', 'invoice.approve: review -> approved']);
  });

  it('refuses with a code of its own, before the handler and without a claim', async () => {
    const started = await agent.call('payment.authorize', { amount: 1, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    FreezingAuditingGate.frozen = true;
    const frozen = await agent.call('payment.capture', { paymentId });
    expect(frozen.isError).toBe(true);
    expect(frozen._meta?.['nestjs-mcp-fsm/error']).toEqual({
      code: 'FROZEN',
      tool: 'payment.capture',
      machine: 'payment',
      state: null,
      allowedTools: ['payment.authorize'],
      errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(textOf(frozen)).toBe('FROZEN: payments are frozen, so "payment.capture" did not run.');
    expect(app.get(HandlerLog).count('payment.capture')).toBe(0);
    FreezingAuditingGate.frozen = false;
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    expect(app.get(HandlerLog).count('payment.capture')).toBe(1);
  });
});
