import { Injectable, Module, type DynamicModule, type Type } from '@nestjs/common';
import { z } from 'zod';
import { McpBindState, McpConfirm, McpModule, McpTool, McpWorkflow } from '../../lib/index.js';
import { invoiceMachine, paymentMachine } from '../fixtures/billing.machines.js';
import { bootstrapError } from '../utils/test-app.js';

function appWith(providers: Type[]): DynamicModule {
  @Module({})
  class ConfirmAppModule {}
  return {
    module: ConfirmAppModule,
    imports: [
      McpModule.forRoot({ name: 'confirm', version: '1.0.0', machines: [invoiceMachine, paymentMachine], transports: { http: false } }),
    ],
    providers,
  };
}

@Injectable()
@McpWorkflow(invoiceMachine)
class UnboundConfirm {
  @McpTool({ name: 'invoice.status', description: 'Status' })
  @McpConfirm(invoiceMachine, 'Show it?')
  status() {}
}

@Injectable()
class ReadConfirm {
  @McpTool({ name: 'invoice.peek', description: 'Peek' })
  @McpBindState(invoiceMachine, 'approved')
  @McpConfirm(invoiceMachine, 'Peek?')
  peek() {}
}

@Injectable()
class OtherMachineConfirm {
  @McpTool({ name: 'invoice.discharge', description: 'Discharge' })
  @McpBindState(invoiceMachine, 'approved', 'DISCHARGE')
  @McpConfirm(paymentMachine, 'Discharge?')
  discharge() {}
}

@Injectable()
class NestedFormConfirm {
  @McpTool({ name: 'invoice.discharge', description: 'Discharge' })
  @McpBindState(invoiceMachine, 'approved', 'DISCHARGE')
  @McpConfirm(invoiceMachine, { message: 'Discharge?', schema: z.object({ approver: z.object({ name: z.string() }) }) })
  discharge() {}
}

@Injectable()
class BadTimeoutConfirm {
  @McpTool({ name: 'invoice.discharge', description: 'Discharge' })
  @McpBindState(invoiceMachine, 'approved', 'DISCHARGE')
  @McpConfirm(invoiceMachine, { message: 'Discharge?', timeoutMs: -1 })
  discharge() {}
}

describe('@McpConfirm is checked at bootstrap, naming the method', () => {
  it.each([
    [
      'on a tool without a binding',
      UnboundConfirm,
      "UnboundConfirm.status: @McpConfirm asks before a transition, so it goes on a tool bound with an event: @McpBindState(machine, states, 'EVENT').",
    ],
    [
      'on a bound tool without an event',
      ReadConfirm,
      "ReadConfirm.peek: @McpConfirm asks before a transition, so it goes on a tool bound with an event: @McpBindState(machine, states, 'EVENT').",
    ],
    [
      'naming another machine than the binding',
      OtherMachineConfirm,
      'OtherMachineConfirm.discharge: @McpConfirm names machine "payment", but the tool is bound to "invoice"; pass the machine of @McpBindState.',
    ],
    [
      'with a form field that is not flat',
      NestedFormConfirm,
      'NestedFormConfirm.discharge: @McpConfirm\'s schema field "approver" is not a string, number, integer, boolean or enum; an elicitation form shows flat fields only.',
    ],
    [
      'with a wait that is not positive',
      BadTimeoutConfirm,
      "BadTimeoutConfirm.discharge: @McpConfirm's timeoutMs must be a whole number of milliseconds from 1 to 2147483647; got -1.",
    ],
  ])('%s', async (_, provider, message) => {
    expect(await bootstrapError([appWith([provider])])).toBe(message);
  });
});
