import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import {
  McpBindState,
  McpConfirm,
  McpPrompt,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  McpArgs,
  McpContext,
  type WorkflowContext,
} from '../lib/index.js';
import { invoiceMachine } from './invoice.machine.js';
import { RequireScopesWithJwt } from './sample-auth.js';

const rejectInput = z.object({
  reason: z.string().max(500).optional().describe('Why the invoice goes back to draft'),
});

const statusOutput = z.object({
  state: z.string(),
  allowedTools: z.array(z.string()),
  history: z.array(
    z.object({
      from: z.string().nullable(),
      to: z.string(),
      event: z.string().nullable(),
      tool: z.string(),
      at: z.string(),
    }),
  ),
});

/**
 * How a person recognises this session's invoice: the session's invoice on stateful HTTP, the
 * caller's in MCP 2026-07-28 (one per principal), the process's on stdio.
 */
function invoiceNumber(ctx: WorkflowContext<typeof invoiceMachine>): string {
  const id = ctx.sessionId ?? ctx.authInfo?.clientId;
  return id ? `INV-${id.slice(0, 8)}` : 'INV-local';
}

/**
 * The invoice workflow's tools. The invoice is session-keyed: each MCP session (or the one
 * stdio client) has its own invoice, created in `draft` by its first call. Each bound tool
 * is listed only in its state, and its successful call fires the transition.
 */
@Injectable()
@McpWorkflow(invoiceMachine)
export class InvoiceTools {
  constructor(private readonly workflows: McpWorkflowService) {}

  @McpPrompt({
    name: 'invoice.review-checklist',
    title: 'Invoice review checklist',
    description: 'What to check before approving or rejecting the invoice under review.',
  })
  @McpBindState(invoiceMachine, 'review')
  reviewChecklist() {
    return [
      'You are reviewing an invoice. Before calling invoice.approve, check:',
      '1. The supplier is known and the bank details match the supplier record.',
      '2. The amount and currency match the purchase order.',
      '3. The invoice is not a duplicate of one already approved.',
      'If anything does not match, call invoice.reject with the reason.',
    ].join('\n');
  }

  @McpTool({ name: 'invoice.submit', description: 'Submit the draft invoice for review.' })
  @McpBindState(invoiceMachine, 'draft', 'SUBMIT')
  submit() {
    return { message: 'Invoice submitted for review.' };
  }

  @McpTool({ name: 'invoice.approve', description: 'Approve the invoice under review.' })
  @McpBindState(invoiceMachine, 'review', 'APPROVE')
  @RequireScopesWithJwt('invoices:approve')
  approve() {
    return { message: 'Invoice approved; it can be discharged now.' };
  }

  @McpTool({
    name: 'invoice.reject',
    description: 'Reject the invoice under review and send it back to draft.',
    inputSchema: rejectInput,
  })
  @McpBindState(invoiceMachine, 'review', 'REJECT')
  reject(@McpArgs() input: McpArgs<typeof rejectInput>) {
    return { message: 'Invoice sent back to draft.', ...(input.reason ? { reason: input.reason } : {}) };
  }

  @McpTool({
    name: 'invoice.discharge',
    description: 'Discharge the approved invoice. This ends the workflow.',
    annotations: { destructiveHint: true },
  })
  @McpBindState(invoiceMachine, 'approved', 'DISCHARGE')
  @McpConfirm(invoiceMachine, (_args, ctx) => `Discharge invoice ${invoiceNumber(ctx)}? It is paid out and cannot be undone.`)
  discharge() {
    return { message: 'Invoice discharged.' };
  }

  @McpTool({
    name: 'invoice.status',
    description:
      "Show this session's invoice: its workflow state (draft, review, approved, discharged), " +
      'the tools allowed now, and every transition so far with the tool that fired it.',
    compactDescription: 'Show the invoice state.',
    outputSchema: statusOutput,
    annotations: { readOnlyHint: true },
  })
  async status(@McpContext() ctx: WorkflowContext<typeof invoiceMachine>): Promise<z.infer<typeof statusOutput>> {
    // The gate resolved this session's invoice (NO_SESSION on stateless HTTP); it is in draft until its first transition.
    const invoice = await this.workflows.get(ctx);
    const history = await this.workflows.history(ctx);
    return {
      state: ctx.state,
      allowedTools: invoice?.allowedTools ?? [],
      history: history.map(({ from, to, event, tool, at }) => ({ from, to, event, tool, at })),
    };
  }
}
