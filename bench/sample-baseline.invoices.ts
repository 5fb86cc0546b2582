import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { InvoiceState, SampleBaselineDatabase } from './sample-baseline.database.js';
import { refused, structured } from './sample-baseline.results.js';

// The sample's schemas (sample/invoice.tools.ts), so that both servers list the same tools.
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

/** The invoice tools bound to a state, with the transition each fires. */
const TRANSITIONS: { tool: string; from: InvoiceState; event: string; to: InvoiceState }[] = [
  { tool: 'invoice.submit', from: 'draft', event: 'SUBMIT', to: 'review' },
  { tool: 'invoice.approve', from: 'review', event: 'APPROVE', to: 'approved' },
  { tool: 'invoice.reject', from: 'review', event: 'REJECT', to: 'draft' },
  { tool: 'invoice.discharge', from: 'approved', event: 'DISCHARGE', to: 'discharged' },
];

/**
 * Registers the sample's invoice tools on one session's server, gated by hand: the session's
 * invoice (draft → review → approved → discharged, reject back to draft) lives in `database`,
 * one transaction per transition with its history row; each bound tool is listed in its
 * state only, and `invoice.status` reads the file.
 */
export function registerInvoiceTools(server: McpServer, sessionId: string, database: SampleBaselineDatabase): void {
  let state: InvoiceState = 'draft';
  const bound = new Map<string, RegisteredTool>();

  const showMenu = () => {
    for (const { tool, from } of TRANSITIONS) {
      const registered = bound.get(tool)!;
      if (registered.enabled === (from === state)) continue;
      if (from === state) registered.enable();
      else registered.disable();
    }
  };
  const fire = (tool: string, message: string, extra: Record<string, unknown> = {}) => {
    const { from, event, to } = TRANSITIONS.find((transition) => transition.tool === tool)!;
    const outcome = database.fireInvoice(sessionId, from, to, event, tool);
    if (!outcome.ok) return refused(`${tool} is not allowed: the invoice is ${outcome.state}`);
    state = to;
    showMenu();
    return structured({ message, ...extra });
  };

  bound.set(
    'invoice.submit',
    server.registerTool('invoice.submit', { description: 'Submit the draft invoice for review.' }, () =>
      fire('invoice.submit', 'Invoice submitted for review.'),
    ),
  );
  bound.set(
    'invoice.approve',
    server.registerTool('invoice.approve', { description: 'Approve the invoice under review.' }, () =>
      fire('invoice.approve', 'Invoice approved; it can be discharged now.'),
    ),
  );
  bound.set(
    'invoice.reject',
    server.registerTool(
      'invoice.reject',
      { description: 'Reject the invoice under review and send it back to draft.', inputSchema: rejectInput },
      ({ reason }) => fire('invoice.reject', 'Invoice sent back to draft.', reason ? { reason } : {}),
    ),
  );
  bound.set(
    'invoice.discharge',
    server.registerTool(
      'invoice.discharge',
      { description: 'Discharge the approved invoice. This ends the workflow.', annotations: { destructiveHint: true } },
      () => fire('invoice.discharge', 'Invoice discharged.'),
    ),
  );
  server.registerTool(
    'invoice.status',
    {
      description:
        "Show this session's invoice: its workflow state (draft, review, approved, discharged), " +
        'the tools allowed now, and every transition so far with the tool that fired it.',
      outputSchema: statusOutput,
      annotations: { readOnlyHint: true },
    },
    () => {
      const invoice = database.invoiceStatus(sessionId);
      const allowedTools = [...TRANSITIONS.filter(({ from }) => from === invoice.state).map(({ tool }) => tool), 'invoice.status'];
      return structured({ state: invoice.state, allowedTools, history: invoice.history });
    },
  );
  showMenu();
}
