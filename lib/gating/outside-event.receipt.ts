import type { WorkflowEventReceipt } from '../stores/workflow-event.interface.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import type { WorkflowCall } from './workflow-call.js';

/** The receipt the commit of an outside event with an idempotency key writes with the state; `undefined` for any other call. */
export function receiptOf(call: WorkflowCall, record: WorkflowTransitionRecord): WorkflowEventReceipt | undefined {
  const idempotencyKey = call.caller.outside?.idempotencyKey;
  if (idempotencyKey === undefined) return undefined;
  return { idempotencyKey, machine: record.machine, event: record.event ?? call.tool.name, actor: record.principal ?? '' };
}
