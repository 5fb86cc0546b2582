// Compiled by `tsc -p tsconfig.json` (every `@ts-expect-error` must meet an error) and by
// typed-workflows.spec.ts, which checks each error is the one its comment names.
import { Injectable } from '@nestjs/common';
import { setup } from 'xstate';
import { z } from 'zod';
import {
  BindState,
  McpBindState,
  defineAccess,
  McpConfirm,
  defineMachine,
  McpTool,
  McpStartWorkflow,
  McpArgs,
  McpContext,
  McpRequire,
  McpWorkflowService,
  type WorkflowContext,
} from '../../lib/index.js';

const orderMachine = defineMachine(
  {
    id: 'order',
    initial: 'cart',
    states: {
      cart: { on: { CHECKOUT: 'review' } },
      review: {
        initial: 'legal',
        on: { CANCEL: 'cart' },
        states: { legal: { on: { CLEAR: 'finance' } }, finance: { on: { APPROVE: '#order.paid' } } },
      },
      paid: { type: 'final' },
    },
  },
  { stateHandleKey: 'orderId' },
);

interface TicketContext {
  assignee: string | null;
  reopened: number;
}

const ticketMachine = defineMachine(
  setup({
    types: { context: {} as TicketContext, events: {} as { type: 'ASSIGN' | 'CLOSE'; input?: { assignee?: string } } },
  }).createMachine({
    id: 'ticket',
    initial: 'open',
    context: { assignee: null, reopened: 0 },
    states: {
      open: { on: { ASSIGN: 'assigned' } },
      assigned: { initial: 'working', states: { working: {}, blocked: {} }, on: { CLOSE: 'closed' } },
      closed: { type: 'final' },
    },
  }),
);

const noteInput = z.object({ text: z.string(), urgent: z.boolean().default(false) });

@Injectable()
export class OrderTools {
  @McpTool({ name: 'order.start', description: 'Start an order' })
  @McpStartWorkflow(orderMachine, 'CHECKOUT')
  start(@McpContext() ctx: WorkflowContext<typeof orderMachine>) {
    return { orderId: ctx.handle.length };
  }

  @McpTool({ name: 'order.open', description: 'Start an order' })
  // @ts-expect-error -- start event: Argument of type '"CLEAR"' is not assignable to parameter of type '"CHECKOUT"'
  @McpStartWorkflow(orderMachine, 'CLEAR')
  open() {}

  @McpTool({ name: 'order.cancel', description: 'Cancel the review' })
  @McpBindState(orderMachine, ['review', 'review.finance'], 'CANCEL')
  cancel() {}

  @McpTool({ name: 'order.clear', description: 'Clear the legal review' })
  @McpBindState(orderMachine, 'review.legal', 'CLEAR')
  clear() {}

  @McpTool({ name: 'order.pay', description: 'Pay' })
  // @ts-expect-error -- wrong state: Argument of type '"reveiw"' is not assignable
  @McpBindState(orderMachine, 'reveiw', 'CANCEL')
  pay() {}

  @McpTool({ name: 'order.approve', description: 'Approve' })
  // @ts-expect-error -- wrong event: Argument of type '"APROVE"' is not assignable
  @McpBindState(orderMachine, 'review.finance', 'APROVE')
  approve() {}

  @McpTool({ name: 'order.early', description: 'Checkout in review' })
  // @ts-expect-error -- event not accepted from that state: Argument of type '"CHECKOUT"' is not assignable to parameter of type '
  @McpBindState(orderMachine, 'review', 'CHECKOUT')
  early() {}

  @McpTool({ name: 'order.status', description: 'Status', inputSchema: noteInput })
  @McpBindState(orderMachine, 'cart')
  status(@McpArgs() input: McpArgs<typeof noteInput>, @McpContext() ctx: WorkflowContext<typeof orderMachine>) {
    const state: 'cart' | 'review.legal' | 'review.finance' | 'paid' = ctx.state;
    const urgent: boolean = input.urgent;
    // @ts-expect-error -- args from zod: Type 'string' is not assignable to type 'number'
    const count: number = input.text;
    // @ts-expect-error -- args from zod: Property 'txet' does not exist
    return { state, urgent, count, typo: input.txet };
  }

  @McpTool({ name: 'order.settle', description: 'Settle, once a person said yes', inputSchema: noteInput })
  @McpBindState(orderMachine, 'review.finance', 'APPROVE')
  @McpConfirm(orderMachine, {
    message: (args: McpArgs<typeof noteInput>, ctx) => {
      const state: 'cart' | 'review.legal' | 'review.finance' | 'paid' = ctx.state;
      const handle: string = ctx.handle;
      // @ts-expect-error -- confirm args from zod: Property 'txet' does not exist
      return `Settle order ${handle} (${state}, urgent: ${args.urgent}): ${args.txet}?`;
    },
  })
  settle() {}
}

@Injectable()
export class TicketTools {
  @McpTool({ name: 'ticket.assign', description: 'Assign' })
  @McpBindState(ticketMachine, 'open', 'ASSIGN')
  assign(@McpContext() ctx: WorkflowContext<typeof ticketMachine>) {
    const reopened: number = ctx.workflowContext.reopened;
    // @ts-expect-error -- context field: Property 'assigne' does not exist on type 'TicketContext'
    const typo = ctx.workflowContext.assigne;
    // @ts-expect-error -- handle of a session-keyed machine: Type 'undefined' is not assignable to type 'string'
    const handle: string = ctx.handle;
    return { reopened, typo, handle };
  }

  @McpTool({ name: 'ticket.block', description: 'Block' })
  @McpBindState(ticketMachine, 'assigned.working')
  block(@McpContext() ctx: WorkflowContext<typeof ticketMachine>) {
    const state: 'open' | 'assigned.working' | 'assigned.blocked' | 'closed' = ctx.state;
    // @ts-expect-error -- state union: This comparison appears to be unintentional
    return state === 'assigned';
  }

  @McpTool({ name: 'ticket.close', description: 'Close' })
  // @ts-expect-error -- wrong XState state: Argument of type '"assigned.waiting"' is not assignable
  @McpBindState(ticketMachine, 'assigned.waiting', 'CLOSE')
  close() {}

  @McpTool({ name: 'ticket.close-confirmed', description: 'Close, once a person said yes' })
  @McpBindState(ticketMachine, 'assigned', 'CLOSE')
  @McpConfirm(ticketMachine, (_args, ctx) => {
    const reopened: number = ctx.workflowContext.reopened;
    // @ts-expect-error -- confirm context field: Property 'assigne' does not exist on type 'TicketContext'
    return `Close the ticket of ${ctx.workflowContext.assigne} (reopened ${reopened} times)?`;
  })
  closeConfirmed() {}

  @McpTool({ name: 'ticket.reopen', description: 'Reopen' })
  // @ts-expect-error -- wrong XState event: Argument of type '"REOPEN"' is not assignable
  @McpBindState(ticketMachine, 'closed', 'REOPEN')
  reopen() {}
}

@Injectable()
export class UntypedTools {
  @McpTool({ name: 'legacy.clear', description: 'The string form still compiles' })
  @BindState('review.legal', 'CLEAR', { machine: orderMachine })
  clear(@McpContext() ctx: WorkflowContext<typeof orderMachine>) {
    return ctx.handle;
  }
}

const billingAccess = defineAccess({ scopes: ['payments:refund', 'invoices:approve'], roles: ['finance'] });

@Injectable()
@McpRequire(billingAccess, { roles: ['finance'] })
export class ScopedTools {
  @McpTool({ name: 'scoped.refund', description: 'Refund' })
  @McpRequire(billingAccess, { scopes: ['payments:refund'] })
  refund() {}

  @McpTool({ name: 'scoped.typo', description: 'A scope the access does not declare' })
  // @ts-expect-error -- unknown scope: Type '"payments:refnud"' is not assignable to type
  @McpRequire(billingAccess, { scopes: ['payments:refnud'] })
  typo() {}

  @McpTool({ name: 'scoped.role', description: 'A role the access does not declare' })
  // @ts-expect-error -- unknown role: Type '"admin"' is not assignable to type '"finance"'
  @McpRequire(billingAccess, { roles: ['admin'] })
  role() {}

  @McpTool({ name: 'scoped.untyped', description: 'The untyped form takes any name' })
  @McpRequire({ scopes: ['anything:goes'] })
  untyped() {}
}

@Injectable()
export class OrderEvents {
  constructor(private readonly workflows: McpWorkflowService) {}

  async cancel(orderId: string) {
    const sent = await this.workflows.send({ machine: orderMachine, handle: orderId }, 'CANCEL', {
      actor: 'psp',
      idempotencyKey: 'evt_1',
      run: (ctx) => ctx.handle.length,
    });
    const state: 'cart' | 'review.legal' | 'review.finance' | 'paid' = sent.state;
    // @ts-expect-error -- outside event: Argument of type '"CANCELL"' is not assignable to parameter of type
    await this.workflows.send({ machine: orderMachine, handle: orderId }, 'CANCELL', { actor: 'psp' });
    await this.workflows.send(
      { machine: ticketMachine, handle: orderId },
      { type: 'CLOSE', input: { reason: 'done' } },
      {
        actor: 'desk',
        // @ts-expect-error -- outside event context: Property 'assigne' does not exist on type 'TicketContext'
        run: (ctx) => ctx.workflowContext.assigne,
      },
    );
    // @ts-expect-error -- outside event type: Type '"REOPEN"' is not assignable to type
    await this.workflows.send({ machine: ticketMachine, handle: orderId }, { type: 'REOPEN' }, { actor: 'desk' });
    await this.workflows.send({ machine: 'order', handle: orderId }, 'ANYTHING', { actor: 'untyped' });
    return state;
  }
}
