import { defineMachine } from '../lib/index.js';

/**
 * The payment workflow, one instance per payment, keyed by the `paymentId` handle that
 * `payment.authorize` returns: pending → AUTHORIZE → authorized, then CAPTURE → captured
 * → REFUND → refunded, or VOID → voided.
 */
export const paymentMachine = defineMachine(
  {
    id: 'payment',
    initial: 'pending',
    states: {
      pending: { on: { AUTHORIZE: 'authorized' } },
      authorized: { on: { CAPTURE: 'captured', VOID: 'voided' } },
      captured: { on: { REFUND: 'refunded' } },
      voided: { type: 'final' },
      refunded: { type: 'final' },
    },
  },
  { stateHandleKey: 'paymentId' },
);
