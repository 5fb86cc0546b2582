import { expiringTool } from '../gating/approval-expiry.js';
import type { MachineDeadline } from '../machines/machine-engine.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowPendingTimer } from '../stores/workflow-timer.interface.js';
import { deadlineName } from './console-actors.js';
import type { ConsoleMachine } from './console-catalog.js';

/** A pending timer of an instance, as the console shows it. */
export interface ConsoleDeadline {
  readonly id: string;
  /** Its name for people (`authorizationTtl`, `expiry of payment.refund's request`). */
  readonly name: string;
  /** The event it sends (an expiry: the reject tool it runs as). */
  readonly event: string;
  /** Where it leads: the target states of an `after` transition, the state an expired request goes back to; absent when unknown. */
  readonly target?: string;
  /** When it is due (or, while a process fires it, when that claim lapses), ISO-8601. */
  readonly dueAt: string;
  /** Its failed firings so far. */
  readonly attempts: number;
}

/**
 * The pending timers of an instance of `machine` as the console shows them, earliest first:
 * named, with where each leads (`deadlines` are the machine's `after` transitions, as its
 * engine lists them; `snapshot` the instance, whose waiting request an expiry rejects).
 */
export function consoleDeadlines(
  machine: ConsoleMachine | undefined,
  deadlines: readonly MachineDeadline[],
  timers: readonly WorkflowPendingTimer[],
  snapshot: WorkflowSnapshot | undefined,
): ConsoleDeadline[] {
  return timers.map(({ id, event, dueAt, attempts }) => {
    const target = expiringTool(id) === undefined ? machine?.afterTargets.get(id)?.join(', ') : snapshot?.waiting?.from.state;
    return { id, name: deadlineName(id, deadlines), event, ...(target ? { target } : {}), dueAt: new Date(dueAt).toISOString(), attempts };
  });
}

/** Whether `deadline` is due within `soonMs` of `now` (or overdue). */
export function isDueSoon(deadline: Pick<ConsoleDeadline, 'dueAt'>, now: number, soonMs: number): boolean {
  return Date.parse(deadline.dueAt) - now <= soonMs;
}
