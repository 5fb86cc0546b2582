import { Injectable, Module, type DynamicModule, type Type } from '@nestjs/common';
import { z } from 'zod';
import { McpApproval, McpBindState, McpModule, McpStartWorkflow, McpTool } from '../../lib/index.js';
import { invoiceMachine } from '../fixtures/billing.machines.js';
import { transferMachine } from '../fixtures/transfer-expiry.app.js';
import { wireMachine } from '../fixtures/wire-approval.app.js';
import { bootstrapError } from '../utils/test-app.js';

function appWith(providers: Type[]): DynamicModule {
  @Module({})
  class ApprovalAppModule {}
  return {
    module: ApprovalAppModule,
    imports: [
      McpModule.forRoot({
        name: 'approval',
        version: '1.0.0',
        machines: [invoiceMachine, wireMachine, transferMachine],
        transports: { http: false },
      }),
    ],
    providers,
  };
}

const decisions = { approve: { name: 'wire.approve' }, reject: { name: 'wire.reject' } };

@Injectable()
class ReadApproval {
  @McpTool({ name: 'wire.peek', description: 'Peek' })
  @McpBindState(wireMachine, 'ready')
  @McpApproval(wireMachine, { waitIn: 'awaiting', ...decisions })
  peek() {}
}

@Injectable()
class UnknownWaitState {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'parked' as 'awaiting', ...decisions })
  send() {}
}

@Injectable()
class BoundWaitState {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'ready', ...decisions })
  send() {}
}

@Injectable()
class FinalWaitState {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'sent', ...decisions })
  send() {}
}

@Injectable()
class SessionKeyedApproval {
  @McpTool({ name: 'invoice.approve', description: 'Approve' })
  @McpBindState(invoiceMachine, 'review', 'APPROVE')
  @McpApproval(invoiceMachine, { waitIn: 'draft', approve: { name: 'invoice.yes' }, reject: { name: 'invoice.no' } })
  approve() {}
}

@Injectable()
class StrictOutput {
  @McpTool({ name: 'wire.send', description: 'Send', outputSchema: z.object({ sent: z.number() }) })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'awaiting', ...decisions })
  send() {}
}

@Injectable()
class BadDecisionName {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'awaiting', approve: { name: 'approve wire' }, reject: { name: 'wire.reject' } })
  send() {}
}

@Injectable()
class TakenDecisionName {
  @McpTool({ name: 'wire.open', description: 'Open' })
  @McpStartWorkflow(wireMachine)
  open() {}

  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'awaiting', approve: { name: 'wire.open' }, reject: { name: 'wire.reject' } })
  send() {}
}

@Injectable()
class BadApproverScope {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'awaiting', approvers: { scopes: ['wires approve'] }, ...decisions })
  send() {}
}

@Injectable()
class UnknownRejectState {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'awaiting', rejectTo: 'bounced' as 'sent', ...decisions })
  send() {}
}

@Injectable()
class RejectToWaitState {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'awaiting', expireTo: 'awaiting', ...decisions })
  send() {}
}

@Injectable()
class RejectToTimedState {
  @McpTool({ name: 'transfer.send', description: 'Send' })
  @McpBindState(transferMachine, 'ready', 'SEND')
  @McpApproval(transferMachine, {
    waitIn: 'awaiting',
    rejectTo: 'sent',
    approve: { name: 'transfer.approve' },
    reject: { name: 'transfer.reject' },
  })
  send() {}
}

@Injectable()
class CrossTenantForAnyone {
  @McpTool({ name: 'wire.send', description: 'Send' })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, { waitIn: 'awaiting', crossTenantApprovers: true, ...decisions })
  send() {}
}

describe('@McpApproval is checked at bootstrap, naming the method', () => {
  it.each([
    [
      'on a bound tool without an event',
      ReadApproval,
      "ReadApproval.peek: @McpApproval defers a transition, so it goes on a tool bound with an event: @McpBindState(machine, states, 'EVENT').",
    ],
    [
      'waiting in a state the machine does not have',
      UnknownWaitState,
      'UnknownWaitState.send: @McpApproval\'s waitIn "parked" is not a state of the machine. Declare a state of its own for waiting calls (e.g. `parked: {}` in "wire"); its states: ready, awaiting, awaiting_audit, sent, audited.',
    ],
    [
      'waiting in a state it is bound to',
      BoundWaitState,
      'BoundWaitState.send: @McpApproval\'s waitIn "ready" is a state the tool itself is bound to.',
    ],
    [
      'waiting in a final state',
      FinalWaitState,
      'FinalWaitState.send: @McpApproval\'s waitIn "sent" is a final state (finished instances are swept).',
    ],
    [
      'on a session-keyed machine',
      SessionKeyedApproval,
      'SessionKeyedApproval.approve: @McpApproval needs a handle-keyed machine (defineMachine(..., { stateHandleKey })): the person who approves names the instance by its handle, and "invoice" is session-keyed.',
    ],
    [
      'on a tool whose output schema refuses the waiting result',
      StrictOutput,
      "StrictOutput.send: @McpApproval on a tool with an outputSchema: a call that waits answers { status: 'waiting_for_approval'",
    ],
    [
      'with a decision tool name MCP does not allow',
      BadDecisionName,
      'BadDecisionName.send: @McpApproval\'s approve.name "approve wire" is not a tool name MCP allows',
    ],
    ['with a decision tool name another tool has', TakenDecisionName, 'wire.open'],
    [
      'rejecting to a state the machine does not have',
      UnknownRejectState,
      'UnknownRejectState.send: @McpApproval\'s rejectTo "bounced" is not a state the machine can be in (a leaf of it). Name a state the machine declares for it; its states: ready, awaiting, awaiting_audit, sent, audited.',
    ],
    [
      'expiring to the waiting state itself',
      RejectToWaitState,
      'RejectToWaitState.send: @McpApproval\'s expireTo "awaiting" is the waiting state itself.',
    ],
    [
      'rejecting to a state with `after` transitions',
      RejectToTimedState,
      'RejectToTimedState.send: @McpApproval\'s rejectTo "sent" has `after` transitions, which a decision (no event) cannot start.',
    ],
    [
      'opening instances across teams without naming approvers',
      CrossTenantForAnyone,
      "CrossTenantForAnyone.send: @McpApproval's crossTenantApprovers opens waiting instances to the holders of approvers",
    ],
    [
      'with an approvers scope OAuth does not allow',
      BadApproverScope,
      'BadApproverScope.send: @McpApproval\'s approvers name the scope "wires approve", which is not an OAuth scope',
    ],
  ])('%s', async (_case, provider, message) => {
    expect(await bootstrapError([appWith([provider])])).toContain(message);
  });
});
