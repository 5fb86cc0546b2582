import { buildCallResult } from '../results/call-result.builder.js';
import { isInputRequired } from '../results/input-required.js';
import type { WorkflowCallOutcome } from './workflow-call-outcome.js';
import type { GateReport } from './gate-visit.js';
import type { WorkflowCall } from './workflow-call.js';

/**
 * The outcome of a call whose pipeline answered `value`, as the gate reported it (`undefined`: the
 * gate is still at the call, abandoned at shutdown): the gate's refusal wins (a filter of the app
 * may have swallowed it).
 */
export function answeredOutcome(call: WorkflowCall, report: GateReport | undefined, value: unknown): WorkflowCallOutcome {
  const effects = effectsOf(call, report);
  const refusal = report?.settlement.refusal;
  if (refusal) {
    return { ...effects, status: 'failed', error: refusal, refusal };
  }
  if (isInputRequired(value)) {
    return { ...effects, status: 'asking', question: value };
  }
  try {
    const result = report?.result ?? buildCallResult(call, value, report?.extra ?? {});
    const decided = report?.settlement.decided;
    return { ...effects, status: 'answered', result, ...(report?.waiting && { waiting: report.waiting }), ...(decided && { decided }) };
  } catch (error) {
    return { ...effects, status: 'failed', error };
  }
}

/** The outcome of a call whose pipeline threw `error`: the gate's refusal wins (whatever the app's filters made of it). */
export function failedOutcome(call: WorkflowCall, report: GateReport | undefined, error: unknown): WorkflowCallOutcome {
  const refusal = report?.settlement.refusal;
  const effects = effectsOf(call, report);
  return refusal ? { ...effects, status: 'failed', error: refusal, refusal } : { ...effects, status: 'failed', error };
}

/**
 * What the outcome tells of the instance; nothing while the gate is still at the call. A start
 * that stored nothing leaves no instance, so no state: its session does not follow the handle.
 */
function effectsOf(call: WorkflowCall, report: GateReport | undefined) {
  const settled = report?.settlement;
  const stored = settled?.stored;
  return {
    call,
    instance: settled?.instance,
    admitted: settled?.admitted,
    stored,
    state: stored ? stored.state : call.tool.role.kind === 'start' ? undefined : settled?.admitted?.state,
  };
}
