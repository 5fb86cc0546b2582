import type { MachineTimers } from '../machines/machine-engine.interface.js';
import type { WorkflowTimerChanges } from '../stores/workflow-timer.interface.js';
import type { WorkflowDeadlineFiring } from './workflow-call.js';

/**
 * What a commit at `atMs` writes to the timers of an instance of `machine`: the timers its
 * transition schedules (due `delayMs` after the commit's time) and cancels, and the timer the
 * call fires, which the store deletes under its claim token. `undefined` when there is nothing
 * to write.
 */
export function timerChangesOf(
  machine: string,
  timers: MachineTimers | undefined,
  atMs: number,
  firing: WorkflowDeadlineFiring | undefined,
): WorkflowTimerChanges | undefined {
  if (!timers && !firing) return undefined;
  const changes: WorkflowTimerChanges = {
    machine,
    schedule: (timers?.schedule ?? []).map(({ id, event, delayMs }) => ({ id, event, dueAt: atMs + delayMs })),
    cancel: timers?.cancel ?? [],
  };
  return firing ? { ...changes, fired: { id: firing.id, token: firing.token } } : changes;
}

/** What the actor a deadline's history row names begins with, before the timer id. */
export const DEADLINE_ACTOR_PREFIX = 'deadline:';

/** The actor a deadline's history row names: `deadline:<timer id>`. */
export function deadlineActor(firing: WorkflowDeadlineFiring | undefined): string | undefined {
  return firing && `${DEADLINE_ACTOR_PREFIX}${firing.id}`;
}
