import { assign, setup } from 'xstate';
import type { EntityManager } from 'typeorm';
import { defineMachine, type McpToolContext } from '../lib/index.js';
import { LedgerStatements } from './ledger.statements.js';

/** What a payment carries between calls: amounts in major units (EUR 12.34 is 12.34), and the currency (absent on payments of 0.4). */
export interface PaymentContext {
  authorized: number;
  captured: number;
  refunded: number;
  currency?: string;
}

/** How long a payment may stay `authorized` before its authorization lapses: `SAMPLE_AUTHORIZATION_TTL_MS`, default 7 days. */
export const authorizationTtlMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const ttl = Number(env.SAMPLE_AUTHORIZATION_TTL_MS ?? 7 * 24 * 60 * 60 * 1000);
  if (!Number.isSafeInteger(ttl) || ttl < 0) {
    throw new Error(`SAMPLE_AUTHORIZATION_TTL_MS must be a whole number of milliseconds, got ${env.SAMPLE_AUTHORIZATION_TTL_MS}.`);
  }
  return ttl;
};

/** What is left to refund, in cents (amounts have at most two decimals). */
export const refundableCents = (context: PaymentContext): number => Math.round(context.captured * 100) - Math.round(context.refunded * 100);

/**
 * The events of a payment: each carries the arguments of the tool that fired it as `input`
 * (a refund's optional `amount`).
 */
export interface PaymentEvent {
  type: 'AUTHORIZE' | 'CAPTURE' | 'VOID' | 'REFUND';
  input?: { amount?: number };
}

/** A payment in one line: the authorized amount and currency, then what was captured and refunded, when anything was. */
export const paymentSummary = (context: PaymentContext): string =>
  [
    `${context.authorized.toFixed(2)}${context.currency ? ` ${context.currency}` : ''}`,
    ...(context.captured > 0 ? [`captured ${context.captured.toFixed(2)}`] : []),
    ...(context.refunded > 0 ? [`refunded ${context.refunded.toFixed(2)}`] : []),
  ].join(' · ');

/** The `void` entry of an operator's VOID, in the transaction that stores `voided`. */
const voidFromConsole = async (ctx: McpToolContext<EntityManager>): Promise<void> => {
  await new LedgerStatements(ctx.manager!.connection).void(ctx.manager!, ctx.handle!);
};

/** The amount a refund call asks for, in cents: `input.amount`, or everything that is left. */
const requestedCents = (context: PaymentContext, input: PaymentEvent['input']): number => {
  const amount = input?.amount;
  return amount === undefined ? refundableCents(context) : Math.round(amount * 100);
};

/**
 * The payment workflow, one instance per payment, keyed by the `paymentId` handle that
 * `payment.authorize` returns: pending → AUTHORIZE → authorized, then CAPTURE → captured, or
 * VOID → voided; an authorization left uncaptured for `SAMPLE_AUTHORIZATION_TTL_MS` lapses by the
 * machine's own `after` transition (→ voided, with its `void` ledger entry: see
 * `PaymentTools.expire`). Refunds may be partial: REFUND goes to `partially_refunded` while something
 * is left and to `refunded` when nothing is; a refund larger than what is left is not enabled
 * (the gate answers GUARD_REJECTED and the handler does not run). A refund above the approval
 * threshold waits in `refund_pending` for a second person (`@McpApproval` on payment.refund:
 * the gate puts it there and back; no event of the machine leads in or out). The amounts live in
 * the machine's context, stored with the state in one write.
 */
export const paymentMachine = defineMachine(
  setup({
    types: {
      context: {} as PaymentContext,
      events: {} as PaymentEvent,
      input: {} as { amount?: number; currency?: string } | undefined,
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
    delays: { authorizationTtl: () => authorizationTtlMs() },
    actions: {
      recordCapture: assign({ captured: ({ context }) => context.authorized }),
      recordRefund: assign({
        refunded: ({ context, event }) => (Math.round(context.refunded * 100) + requestedCents(context, event.input)) / 100,
      }),
    },
  }).createMachine({
    id: 'payment',
    initial: 'pending',
    // payment.authorize's arguments are the machine's input (undefined when the module boots).
    context: ({ input }) => ({ authorized: input?.amount ?? 0, captured: 0, refunded: 0, currency: input?.currency }),
    states: {
      pending: { on: { AUTHORIZE: 'authorized' } },
      authorized: {
        after: { authorizationTtl: 'voided' },
        on: { CAPTURE: { target: 'captured', actions: 'recordCapture' }, VOID: 'voided' },
      },
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
      refund_pending: {},
      voided: { type: 'final' },
      refunded: { type: 'final' },
    },
  }),
  {
    stateHandleKey: 'paymentId',
    // Team access: a payment started by a token with an `org` claim is every principal of that org's (SAMPLE_AUTH=jwt).
    access: { team: 'org' },
    // The console's line about a payment: "60.00 EUR · captured 60.00 · refunded 50.00".
    summary: (context: PaymentContext) => paymentSummary(context),
    // An operator may void an authorized payment from the console (SAMPLE_AUTH=jwt: scope workflows:send), with its `void` entry.
    operatorEvents: { VOID: { run: (ctx: McpToolContext<EntityManager>) => voidFromConsole(ctx) } },
  },
);
