import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { EntityManager, Repository } from 'typeorm';
import { z } from 'zod';
import {
  McpApproval,
  McpApprovalsService,
  McpArgs,
  McpBindState,
  McpContext,
  McpRequire,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  type WorkflowContext,
} from '../lib/index.js';
import { McpDeadline } from '../lib/extend.js';
import { runInSqliteTurn } from '../lib/typeorm.js';
import { sampleHandlerDelay } from './handler-delay.js';
import { RequireScopesWithJwt, sampleAccess } from './sample-auth.js';
import { LedgerEntry, type LedgerKind } from './ledger-entry.entity.js';
import { LedgerStatements, type NewLedgerEntry } from './ledger.statements.js';
import { paymentMachine, refundableCents, type PaymentContext } from './payment.machine.js';

/** What a payment tool's handler knows of its call, typed from the payment machine. */
type PaymentCall = WorkflowContext<typeof paymentMachine, EntityManager>;

const authorizeInput = z.object({
  amount: z
    .number()
    .positive()
    .max(1_000_000_000)
    .refine((amount) => Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6, 'amount has at most 2 decimal places')
    .describe('Amount to authorize, in major units (12.34)'),
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'currency is a 3-letter ISO 4217 code in capitals (EUR, USD)')
    .describe('ISO 4217 currency code (EUR, USD, BRL)'),
});

const statusInput = z.object({
  paymentId: z.string().min(1).max(64).describe('The paymentId returned by payment.authorize'),
});

const refundInput = z.object({
  amount: z
    .number()
    .positive()
    .max(1_000_000_000)
    .refine((amount) => Math.abs(amount * 100 - Math.round(amount * 100)) < 1e-6, 'amount has at most 2 decimal places')
    .optional()
    .describe('Amount to refund, in major units; default: everything not refunded yet'),
});

const statusOutput = z.object({
  paymentId: z.string(),
  state: z.string(),
  refundable: z.number().describe('What can still be refunded'),
  ledger: z.array(z.object({ kind: z.enum(['authorize', 'capture', 'void', 'refund']), amount: z.number() })),
  pendingRefund: z
    .object({
      requestId: z.string().describe('What payment.approve_refund and payment.reject_refund name'),
      amount: z.number(),
      requestedBy: z.string().nullable(),
      requestedAt: z.string(),
    })
    .optional()
    .describe('The refund waiting for a second person (state refund_pending)'),
});

/** A refund waiting for a second person, as `payment.pending_refunds` lists it. */
const pendingRefund = z.object({
  paymentId: z.string(),
  requestId: z.string(),
  amount: z.number(),
  requestedBy: z.string().nullable(),
  requestedAt: z.string(),
});

const pendingOutput = z.object({ pending: z.array(pendingRefund).describe('Newest first, at most 100') });

/** Refunds above this amount (`SAMPLE_APPROVAL_THRESHOLD`, major units) wait for a second person's approval. */
export const sampleApprovalThreshold = (env: NodeJS.ProcessEnv = process.env): number => {
  const threshold = Number(env.SAMPLE_APPROVAL_THRESHOLD ?? 100);
  if (!Number.isFinite(threshold) || threshold < 0) {
    throw new Error(`SAMPLE_APPROVAL_THRESHOLD must be a number of major units, 0 or more (got ${env.SAMPLE_APPROVAL_THRESHOLD}).`);
  }
  return threshold;
};

const APPROVAL_THRESHOLD = sampleApprovalThreshold();

/** How long a refund waits in `refund_pending` before it expires as a rejection (`SAMPLE_APPROVAL_TTL_MS`, default 24 h). */
export const sampleApprovalTtlMs = (env: NodeJS.ProcessEnv = process.env): number => {
  const ttl = Number(env.SAMPLE_APPROVAL_TTL_MS ?? 24 * 60 * 60 * 1000);
  if (!Number.isSafeInteger(ttl) || ttl <= 0) {
    throw new Error(`SAMPLE_APPROVAL_TTL_MS must be a positive whole number of milliseconds, got ${env.SAMPLE_APPROVAL_TTL_MS}.`);
  }
  return ttl;
};

const APPROVAL_TTL_MS = sampleApprovalTtlMs();

/** What a refund call asks for, in major units: `amount`, or everything not refunded yet. */
const refundAmount = (amount: number | undefined, context: PaymentContext): number => amount ?? refundableCents(context) / 100;

/** What a waiting refund asks for: its `amount` argument, or what was left when it was asked. */
const requestedAmount = (input: Record<string, unknown>, asked: Record<string, unknown> | undefined): number =>
  refundAmount(input.amount as number | undefined, asked as unknown as PaymentContext);

/**
 * The payment workflow's tools. A payment is handle-keyed: `payment.authorize` starts one and
 * returns its `paymentId`, which every other payment tool takes. The transition tools run in
 * transactional mode: the handler writes its ledger entry through the transaction's
 * `EntityManager` (`ctx.manager`), so the entry and the state change commit together or not
 * at all, and concurrent calls on one payment run the handler once.
 */
@Injectable()
@McpWorkflow(paymentMachine)
export class PaymentTools {
  private readonly statements: LedgerStatements;

  constructor(
    @InjectRepository(LedgerEntry) private readonly ledger: Repository<LedgerEntry>,
    private readonly workflows: McpWorkflowService,
    private readonly approvals: McpApprovalsService,
  ) {
    this.statements = new LedgerStatements(ledger.manager.connection);
  }

  @McpTool({
    name: 'payment.authorize',
    description:
      'Authorize a payment of `amount` in `currency`. Returns the `paymentId` that payment.capture, ' +
      'payment.void, payment.refund and payment.status take.',
    inputSchema: authorizeInput,
    annotations: { idempotentHint: false },
  })
  @McpStartWorkflow(paymentMachine, 'AUTHORIZE', { transactional: true })
  async authorize(@McpArgs() input: McpArgs<typeof authorizeInput>, @McpContext() ctx: PaymentCall) {
    await this.write(ctx, 'authorize', input.amount, input.currency);
    return { amount: input.amount, currency: input.currency, message: 'Payment authorized: capture it or void it.' };
  }

  @McpTool({ name: 'payment.capture', description: 'Capture the full authorized amount of a payment.' })
  @McpBindState(paymentMachine, 'authorized', 'CAPTURE', { transactional: true })
  async capture(@McpContext() ctx: PaymentCall) {
    const entry = await this.settle(ctx, 'capture');
    return { captured: entry.amount, currency: entry.currency, message: 'Payment captured.' };
  }

  @McpTool({
    name: 'payment.void',
    description: 'Void an authorized payment that was not captured, releasing the authorization. This ends the payment.',
    annotations: { destructiveHint: true },
  })
  @McpBindState(paymentMachine, 'authorized', 'VOID', { transactional: true })
  async void(@McpContext() ctx: PaymentCall) {
    const entry = await this.settle(ctx, 'void');
    return { voided: entry.amount, currency: entry.currency, message: 'Payment voided.' };
  }

  /** The authorization lapsed (`SAMPLE_AUTHORIZATION_TTL_MS` in `authorized`): its `void` entry, in the transaction that stores `voided`. */
  @McpDeadline(paymentMachine, 'authorized')
  async expire(ctx: PaymentCall): Promise<void> {
    await this.settle(ctx, 'void');
  }

  /**
   * The payment provider revoked the authorization (`POST /webhooks/psp`): `authorized → voided` as
   * an outside event sent by `psp`, with its `void` entry in the transaction that stores `voided`,
   * once per provider event id. Rejects with the gate's refusal when the payment is not
   * `authorized` (FORBIDDEN, naming its state) or unknown (UNKNOWN_HANDLE).
   */
  revoke(paymentId: string, eventId: string) {
    return this.workflows.send({ machine: paymentMachine, handle: paymentId }, 'VOID', {
      actor: 'psp',
      idempotencyKey: eventId,
      run: async (ctx: PaymentCall) => {
        await this.settle(ctx, 'void');
      },
    });
  }

  @McpTool({
    name: 'payment.refund',
    description:
      'Refund a captured payment, in full or in part (`amount`, default: everything not refunded yet). ' +
      'Refunding what is left ends the payment; more than what is left is refused. A refund above ' +
      `${APPROVAL_THRESHOLD} waits in refund_pending for another person to approve it (payment.approve_refund) or reject it; ` +
      'undecided, it expires as a rejection.',
    inputSchema: refundInput,
    annotations: { destructiveHint: true },
    // A client may run it as an MCP task (params.task): tasks/get and tasks/result answer on any process.
    task: 'optional',
  })
  @McpBindState(paymentMachine, ['captured', 'partially_refunded'], 'REFUND', { transactional: true })
  @McpApproval(paymentMachine, {
    when: (input: McpArgs<typeof refundInput>, ctx) => refundAmount(input.amount, ctx.workflowContext) > APPROVAL_THRESHOLD,
    waitIn: 'refund_pending',
    approvers: { scopes: ['payments:approve'] },
    approve: {
      name: 'payment.approve_refund',
      description:
        'Approve the refund waiting for a second person, named by its requestId (payment.pending_refunds, payment.status): it is made then. Not by who asked.',
    },
    reject: {
      name: 'payment.reject_refund',
      description:
        'Reject the refund waiting for a second person, named by its requestId: the payment goes back to where it was. The person who asked may withdraw it this way.',
    },
    // Nobody decided in time: the request is rejected (reason "expired") by a durable timer, on whichever process claims it.
    expiresAfterMs: APPROVAL_TTL_MS,
  })
  @RequireScopesWithJwt('payments:refund')
  async refund(@McpArgs() input: McpArgs<typeof refundInput>, @McpContext() ctx: PaymentCall) {
    // The gate ran the machine's guards on this amount before the handler: it is at most what is left.
    // Once approved, this runs in payment.approve_refund's call, with the arguments and the payment as they were asked for.
    const entry = await this.settle(ctx, 'refund', refundAmount(input.amount, ctx.workflowContext));
    const approval = ctx.approval && { requestedBy: ctx.approval.requestedBy, approvedBy: ctx.approval.approvedBy };
    return { refunded: entry.amount, currency: entry.currency, message: 'Refund recorded.', ...approval };
  }

  @McpTool({
    name: 'payment.status',
    description: "Show a payment's workflow state, what can still be refunded, and its ledger entries (authorize, capture, void, refund).",
    inputSchema: statusInput,
    outputSchema: statusOutput,
    annotations: { readOnlyHint: true, idempotentHint: true },
  })
  async status(@McpContext() ctx: WorkflowContext<typeof paymentMachine>): Promise<z.infer<typeof statusOutput>> {
    // The gate resolved the paymentId before this ran: a forged or foreign one got UNKNOWN_HANDLE.
    // On SQLite the read waits for a transactional call in flight, so it never shows an entry that call may roll back.
    const manager = this.ledger.manager;
    const waiting = ctx.state === 'refund_pending' ? (await this.workflows.get(ctx))?.waiting : undefined;
    return {
      paymentId: ctx.handle,
      state: ctx.state,
      refundable: refundableCents(ctx.workflowContext) / 100,
      ledger: await runInSqliteTurn(manager.connection, () => this.statements.entries(manager, ctx.handle)),
      ...(waiting && {
        pendingRefund: {
          requestId: waiting.requestId,
          amount: requestedAmount(waiting.input, waiting.from.context),
          requestedBy: waiting.requestedBy,
          requestedAt: waiting.at,
        },
      }),
    };
  }

  @McpTool({
    name: 'payment.pending_refunds',
    description:
      'List the refunds waiting for a second person on the payments you may see (your team’s; your own requests too, which you cannot approve): ' +
      'paymentId, requestId, amount, who asked and when, newest first. Approve one with payment.approve_refund { paymentId, requestId }.',
    outputSchema: pendingOutput,
    annotations: { readOnlyHint: true, idempotentHint: true },
  })
  @McpRequire(sampleAccess, { scopes: ['payments:approve'] })
  async pendingRefunds(@McpContext() ctx: WorkflowContext<typeof paymentMachine>): Promise<z.infer<typeof pendingOutput>> {
    const pending = await this.approvals.pending(ctx, { machine: paymentMachine.id });
    return {
      pending: pending.map((request) => ({
        paymentId: request.handle,
        requestId: request.requestId,
        amount: requestedAmount(request.input, request.from.context),
        requestedBy: request.requestedBy,
        requestedAt: request.requestedAt,
      })),
    };
  }

  /** Writes the entry of a capture, void or refund: `amount`, or the authorized amount. */
  private async settle(ctx: PaymentCall, kind: Exclude<LedgerKind, 'authorize'>, amount?: number): Promise<NewLedgerEntry> {
    const authorization = await this.statements.authorization(this.transaction(ctx), ctx.handle);
    if (!authorization) {
      throw new NotFoundException(`Payment "${ctx.handle}" has no authorization in the ledger.`);
    }
    return this.write(ctx, kind, amount ?? authorization.amount, authorization.currency);
  }

  /** Inserts one ledger entry in the call's transaction. */
  private async write(ctx: PaymentCall, kind: LedgerKind, amount: number, currency: string): Promise<NewLedgerEntry> {
    const entry = { paymentId: ctx.handle, kind, amount, currency, createdAt: Date.now() };
    await this.statements.insert(this.transaction(ctx), entry);
    await sampleHandlerDelay();
    return entry;
  }

  /** The transaction the gate opened for this call (the payment tools are transactional). */
  private transaction(ctx: PaymentCall): EntityManager {
    if (!ctx.manager) {
      throw new Error(`${ctx.toolName} must run in transactional mode: the call has no transaction manager.`);
    }
    return ctx.manager;
  }
}
