import { defineMachine } from '../lib/index.js';

/**
 * The invoice workflow, one instance per MCP session (stateful HTTP) or per process (stdio):
 * draft → SUBMIT → review → APPROVE → approved → DISCHARGE → discharged; REJECT sends a
 * reviewed invoice back to draft.
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
