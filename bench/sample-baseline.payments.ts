import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { LedgerRow, PaymentRow, SampleBaselineDatabase, TransitionOutcome } from './sample-baseline.database.js';
import { refused, structured } from './sample-baseline.results.js';

// The sample's schemas (sample/payment.tools.ts), so that both servers list the same tools.
const amount = z
  .number()
  .positive()
  .max(1_000_000_000)
  .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, 'amount has at most 2 decimal places');
const paymentId = z.string().describe('Handle of the payment workflow, as returned when it was started.');
const authorizeInput = z.object({
  amount: amount.describe('Amount to authorize, in major units (12.34)'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'currency is a 3-letter ISO 4217 code in capitals (EUR, USD)')
    .describe('ISO 4217 currency code (EUR, USD, BRL)'),
});
const paymentInput = z.object({ paymentId });
const refundInput = z.object({
  amount: amount.optional().describe('Amount to refund, in major units; default: everything not refunded yet'),
  paymentId,
});
const statusInput = z.object({
  paymentId: z.string().min(1).max(64).describe('The paymentId returned by payment.authorize'),
});
const statusOutput = z.object({
  paymentId: z.string(),
  state: z.string(),
  refundable: z.number().describe('What can still be refunded'),
  ledger: z.array(z.object({ kind: z.enum(['authorize', 'capture', 'void', 'refund']), amount: z.number() })),
});

const cents = (major: number) => Math.round(major * 100);
const major = (value: number) => value / 100;

/**
 * Registers the sample's payment tools (authorize → capture or void, refunds) on one
 * session's server, gated by hand: payments and the ledger go through to `database` (one
 * transaction per transition), `payment.status` reads the file. The session's menu follows
 * the payments it started: `payment.capture` and `payment.void` are listed while one is
 * authorized, `payment.refund` while one has something left to refund; a change of the menu
 * enables or disables the SDK tool, which sends `notifications/tools/list_changed`.
 */
export function registerPaymentTools(server: McpServer, sessionId: string, database: SampleBaselineDatabase): void {
  /** How many of the session's payments each menu entry depends on. */
  const open = { authorized: 0, refundable: 0 };
  const gated: RegisteredTool[] = [];

  const showMenu = () => {
    const visible = [open.authorized > 0, open.authorized > 0, open.refundable > 0];
    gated.forEach((tool, index) => {
      if (tool.enabled === visible[index]) return;
      if (visible[index]) tool.enable();
      else tool.disable();
    });
  };
  const count = (state: PaymentRow['state'], by: number) => {
    if (state === 'authorized') open.authorized += by;
    if (state === 'captured' || state === 'partially_refunded') open.refundable += by;
  };
  const moved = (before: PaymentRow['state'], outcome: TransitionOutcome & { ok: true }) => {
    count(before, -1);
    count(outcome.payment.state, 1);
    showMenu();
  };
  const refusal = (outcome: TransitionOutcome & { ok: false }, id: string) =>
    refused(`${outcome.refusal}: payment "${id}"${outcome.state ? ` is ${outcome.state}` : ''}`);
  const entryOf = (payment: PaymentRow, entry: LedgerRow) => ({ amount: major(entry.amountCents), currency: payment.currency });

  server.registerTool(
    'payment.authorize',
    {
      description:
        'Authorize a payment of `amount` in `currency`. Returns the `paymentId` that payment.capture, ' +
        'payment.void, payment.refund and payment.status take.',
      inputSchema: authorizeInput,
      annotations: { idempotentHint: false },
    },
    ({ amount, currency }) => {
      const payment = database.authorize(sessionId, cents(amount), currency);
      count(payment.state, 1);
      showMenu();
      return structured({ amount, currency, message: 'Payment authorized: capture it or void it.', paymentId: payment.id });
    },
  );
  gated.push(
    server.registerTool(
      'payment.capture',
      { description: 'Capture the full authorized amount of a payment.', inputSchema: paymentInput },
      ({ paymentId: id }) => {
        const outcome = database.settle(sessionId, id, 'captured');
        if (!outcome.ok) return refusal(outcome, id);
        moved('authorized', outcome);
        const { amount: captured, currency } = entryOf(outcome.payment, outcome.entry);
        return structured({ captured, currency, message: 'Payment captured.' });
      },
    ),
    server.registerTool(
      'payment.void',
      {
        description: 'Void an authorized payment that was not captured, releasing the authorization. This ends the payment.',
        inputSchema: paymentInput,
        annotations: { destructiveHint: true },
      },
      ({ paymentId: id }) => {
        const outcome = database.settle(sessionId, id, 'voided');
        if (!outcome.ok) return refusal(outcome, id);
        moved('authorized', outcome);
        const { amount: voided, currency } = entryOf(outcome.payment, outcome.entry);
        return structured({ voided, currency, message: 'Payment voided.' });
      },
    ),
    server.registerTool(
      'payment.refund',
      {
        description:
          'Refund a captured payment, in full or in part (`amount`, default: everything not refunded yet). ' +
          'Refunding what is left ends the payment; more than what is left is refused.',
        inputSchema: refundInput,
        annotations: { destructiveHint: true },
      },
      ({ amount: requested, paymentId: id }) => {
        const outcome = database.refund(sessionId, id, requested === undefined ? undefined : cents(requested));
        if (!outcome.ok) return refusal(outcome, id);
        // Captured and partially refunded payments count alike in the menu.
        moved('captured', outcome);
        const { amount: refunded, currency } = entryOf(outcome.payment, outcome.entry);
        return structured({ refunded, currency, message: 'Refund recorded.' });
      },
    ),
  );
  server.registerTool(
    'payment.status',
    {
      description:
        "Show a payment's workflow state, what can still be refunded, and its ledger entries (authorize, capture, void, refund).",
      inputSchema: statusInput,
      outputSchema: statusOutput,
      annotations: { readOnlyHint: true, idempotentHint: true },
    },
    ({ paymentId: id }) => {
      const found = database.status(sessionId, id);
      if (!found) return refused(`unknown payment: "${id}"`);
      const { payment, ledger } = found;
      return structured({
        paymentId: id,
        state: payment.state,
        refundable: major(payment.capturedCents - payment.refundedCents),
        ledger: ledger.map(({ kind, amountCents }) => ({ kind, amount: major(amountCents) })),
      });
    },
  );
  showMenu();
}
