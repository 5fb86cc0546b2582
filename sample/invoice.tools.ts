import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import {
  BindState,
  FsmStateStore,
  isAtomicFsmStateStore,
  McpTool,
  McpToolRegistry,
  McpWorkflow,
  ToolArgs,
  ToolContext,
  type McpToolContext,
} from '../lib/index.js';
import { invoiceMachine } from './invoice.machine.js';

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
 * The invoice workflow's tools. The invoice is session-keyed: each MCP session (or the one
 * stdio client) has its own invoice, created in `draft` by its first call. Each bound tool
 * is listed only in its state, and its successful call fires the transition.
 */
@Injectable()
@McpWorkflow(invoiceMachine)
export class InvoiceTools {
  constructor(
    @Inject(FsmStateStore) private readonly store: FsmStateStore,
    private readonly tools: McpToolRegistry,
  ) {}

  @McpTool({ name: 'invoice.submit', description: 'Submit the draft invoice for review.' })
  @BindState('draft', 'SUBMIT')
  submit() {
    return { message: 'Invoice submitted for review.' };
  }

  @McpTool({ name: 'invoice.approve', description: 'Approve the invoice under review.' })
  @BindState('review', 'APPROVE')
  approve() {
    return { message: 'Invoice approved; it can be discharged now.' };
  }

  @McpTool({
    name: 'invoice.reject',
    description: 'Reject the invoice under review and send it back to draft.',
    inputSchema: rejectInput,
  })
  @BindState('review', 'REJECT')
  reject(@ToolArgs() input: z.infer<typeof rejectInput>) {
    return { message: 'Invoice sent back to draft.', ...(input.reason ? { reason: input.reason } : {}) };
  }

  @McpTool({
    name: 'invoice.discharge',
    description: 'Discharge the approved invoice. This ends the workflow.',
    annotations: { destructiveHint: true },
  })
  @BindState('approved', 'DISCHARGE')
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
  async status(@ToolContext() ctx: McpToolContext): Promise<z.infer<typeof statusOutput>> {
    const key = ctx.sessionStoreKey(invoiceMachine.id);
    if (!key) {
      throw new BadRequestException(
        'The invoice workflow needs a session: connect over stateful HTTP or stdio (stateless HTTP has no session).',
      );
    }
    // A session's invoice exists once its first bound call has run; before that it is in draft.
    const state = (await this.store.load(key))?.state ?? invoiceMachine.config.initial;
    const history = isAtomicFsmStateStore(this.store) ? await this.store.history(key) : [];
    return {
      state,
      allowedTools: this.tools.allowedNames(invoiceMachine.id, state),
      history: history.map(({ from, to, event, tool, at }) => ({ from, to, event, tool, at })),
    };
  }

}
