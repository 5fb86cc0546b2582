import type { MachineState, MachineStep, MachineTimer, MachineTimers } from './machine-engine.interface.js';

/** No timer scheduled or cancelled: the timers of a machine without `after`. */
export const NO_TIMERS: MachineTimers = Object.freeze({ schedule: Object.freeze([]), cancel: Object.freeze([]) });

/** Whether `timers` schedules or cancels anything. */
export function hasTimers(timers: MachineTimers | undefined): timers is MachineTimers {
  return timers !== undefined && (timers.schedule.length > 0 || timers.cancel.length > 0);
}

/**
 * The timers of the actions a step of XState answers (its initial transition, or a transition): each
 * delayed `raise` (what an `after` transition of an entered state becomes) is scheduled, each
 * `cancel` (of a left state) cancelled. A timer cancelled and scheduled again in one step (a
 * re-entered state) is scheduled anew. @internal
 */
export function timersOfActions(actions: ReadonlyArray<{ type: string; params?: unknown }>): MachineTimers {
  const schedule = new Map<string, MachineTimer>();
  const cancel = new Set<string>();
  for (const action of actions) {
    const params = (action.params ?? {}) as { id?: unknown; delay?: unknown; event?: { type?: unknown }; sendId?: unknown };
    if (action.type === 'xstate.raise' && typeof params.delay === 'number' && typeof params.id === 'string') {
      const event = typeof params.event?.type === 'string' ? params.event.type : params.id;
      schedule.set(params.id, Object.freeze({ id: params.id, event, delayMs: Math.max(0, params.delay) }));
    } else if (action.type === 'xstate.cancel' && typeof params.sendId === 'string') {
      cancel.add(params.sendId);
      schedule.delete(params.sendId);
    }
  }
  return schedule.size === 0 && cancel.size === 0
    ? NO_TIMERS
    : Object.freeze({ schedule: Object.freeze([...schedule.values()]), cancel: Object.freeze([...cancel]) });
}

/** A moved step: `timers` only when it schedules or cancels any. @internal */
export function movedStep(next: MachineState, timers: MachineTimers): MachineStep {
  return hasTimers(timers) ? { status: 'moved', next, timers } : { status: 'moved', next };
}

/** The timers of two steps taken one after the other (a start's initial state, then its event): what the second cancels of the first is never stored. */
export function chainTimers(first: MachineTimers, then: MachineTimers | undefined): MachineTimers {
  if (!then) return first;
  const cancelled = new Set(then.cancel);
  const kept = first.schedule.filter((timer) => !cancelled.has(timer.id));
  const rescheduled = new Set(then.schedule.map((timer) => timer.id));
  return {
    schedule: [...kept.filter((timer) => !rescheduled.has(timer.id)), ...then.schedule],
    cancel: [...new Set([...first.cancel, ...then.cancel])],
  };
}
