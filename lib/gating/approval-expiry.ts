import type { McpToolApproval } from '../registry/mcp-handler-role.js';
import type { MachineTimers } from '../machines/machine-engine.interface.js';
import * as messages from './gating.messages.js';
import type { WorkflowCall } from './workflow-call.js';

/** The reason a request that expired is rejected with (kept in its history row). */
export const EXPIRED_REASON = 'expired';

/** What the ids of the timers that expire waiting calls begin with (never an engine's: XState's begin with `xstate.after.`). */
const EXPIRY_TIMER_PREFIX = 'mcp.approval-expiry.';

/** The id of the timer that expires the waiting call of `tool` (`mcp.approval-expiry.payment.refund`). */
export function approvalExpiryTimerId(tool: string): string {
  return `${EXPIRY_TIMER_PREFIX}${tool}`;
}

/** The tool whose waiting call the timer `id` expires; `undefined` for any other timer. */
export function expiringTool(id: string): string | undefined {
  return id.startsWith(EXPIRY_TIMER_PREFIX) ? id.slice(EXPIRY_TIMER_PREFIX.length) : undefined;
}

/** Whether `ms` is a delay a waiting call may expire after: a positive whole number of milliseconds. */
export function isExpiryDelay(ms: unknown): ms is number {
  return typeof ms === 'number' && Number.isSafeInteger(ms) && ms > 0;
}

/**
 * The timer a call parked by `approval` schedules with its waiting state, due `expiresAfterMs`
 * after the commit; `undefined` when the request never expires. Throws when the app's function
 * throws or answers no delay (the gate then refuses the call: nothing is parked).
 */
export function expiryTimersOf(call: WorkflowCall, approval: McpToolApproval, input: Record<string, unknown>): MachineTimers | undefined {
  const { expiresAfterMs } = approval;
  if (expiresAfterMs === undefined) return undefined;
  const delayMs = typeof expiresAfterMs === 'function' ? expiresAfterMs(input, call.context) : expiresAfterMs;
  if (!isExpiryDelay(delayMs)) {
    throw new TypeError(messages.approvalExpiryNotADelay(delayMs));
  }
  return { schedule: [{ id: approvalExpiryTimerId(call.tool.name), event: approval.reject, delayMs }], cancel: [] };
}

/** What a decision of a waiting call cancels: its expiry timer, when it has one. */
export function expiryCancelOf(expiryTimer: string | undefined): MachineTimers | undefined {
  return expiryTimer === undefined ? undefined : { schedule: [], cancel: [expiryTimer] };
}
