import { assign, setup } from 'xstate';
import { defineMachine } from './define-machine.js';

/**
 * The library specs' own machines (the design's running example, kept apart from the sample
 * so the sample can change without moving the specs): an invoice, one instance per session,
 * draft → SUBMIT → review → APPROVE → approved → DISCHARGE → discharged, REJECT back to draft.
 */
export const invoiceMachine = defineMachine({
  id: 'invoice',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: { on: { APPROVE: 'approved', REJECT: 'draft' } },
    approved: { on: { DISCHARGE: 'discharged' } },
    discharged: { type: 'final' },
  },
});

/** What a payment carries between calls: amounts in major units. */
interface PaymentContext {
  authorized: number;
  captured: number;
  refunded: number;
}

const refundableCents = (context: PaymentContext): number => Math.round(context.captured * 100) - Math.round(context.refunded * 100);

const requestedCents = (context: PaymentContext, input: unknown): number => {
  const amount = (input as { amount?: number } | undefined)?.amount;
  return amount === undefined ? refundableCents(context) : Math.round(amount * 100);
};

/**
 * A payment, one instance per `paymentId` handle: pending → AUTHORIZE → authorized, CAPTURE
 * or VOID, then guarded partial or full REFUNDs; amounts in the machine's context.
 */
export const paymentMachine = defineMachine(
  setup({
    types: {
      context: {} as PaymentContext,
      events: {} as { type: string; input?: unknown },
      input: {} as { amount?: number } | undefined,
    },
    guards: {
      refundLeavesNothing: ({ context, event }) => {
        const cents = requestedCents(context, event.input);
        return cents > 0 && cents === refundableCents(context);
      },
      refundLeavesSome: ({ context, event }) => {
        const cents = requestedCents(context, event.input);
        return cents > 0 && cents < refundableCents(context);
      },
    },
    actions: {
      recordCapture: assign({ captured: ({ context }) => context.authorized }),
      recordRefund: assign({
        refunded: ({ context, event }) => (Math.round(context.refunded * 100) + requestedCents(context, event.input)) / 100,
      }),
    },
  }).createMachine({
    id: 'payment',
    initial: 'pending',
    context: ({ input }) => ({ authorized: input?.amount ?? 0, captured: 0, refunded: 0 }),
    states: {
      pending: { on: { AUTHORIZE: 'authorized' } },
      authorized: { on: { CAPTURE: { target: 'captured', actions: 'recordCapture' }, VOID: 'voided' } },
      captured: {
        on: {
          REFUND: [
            { guard: 'refundLeavesNothing', target: 'refunded', actions: 'recordRefund' },
            { guard: 'refundLeavesSome', target: 'partially_refunded', actions: 'recordRefund' },
          ],
        },
      },
      partially_refunded: {
        on: {
          REFUND: [
            { guard: 'refundLeavesNothing', target: 'refunded', actions: 'recordRefund' },
            { guard: 'refundLeavesSome', target: 'partially_refunded', actions: 'recordRefund' },
          ],
        },
      },
      voided: { type: 'final' },
      refunded: { type: 'final' },
    },
  }),
  { stateHandleKey: 'paymentId' },
);
