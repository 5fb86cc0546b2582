import { expiringTool } from '../gating/approval-expiry.js';
import { DEADLINE_ACTOR_PREFIX } from '../gating/workflow-deadline.changes.js';
import type { MachineDeadline } from '../machines/machine-engine.interface.js';
import { approvalExpiryName, deadlineActorText } from './console.messages.js';

/** Who made a transition, as the console shows it: a deadline (named for people) or the actor the store recorded. */
export interface ConsoleActor {
  /** `deadline`: the deadline scheduler fired a timer; `recorded`: a caller, a back office or an outside actor, shown as recorded. */
  readonly kind: 'deadline' | 'recorded';
  readonly text: string;
}

/**
 * A timer's name for people: an `after` transition's delay as written (`authorizationTtl`,
 * `5000`), or the waiting call whose expiry it is; the id itself for a timer the machine (as
 * deployed now) does not have.
 */
export function deadlineName(timerId: string, deadlines: readonly MachineDeadline[]): string {
  const tool = expiringTool(timerId);
  if (tool !== undefined) return approvalExpiryName(tool);
  return deadlines.find((deadline) => deadline.event === timerId)?.delay ?? timerId;
}

/** The actor of a history row: `deadline:<timer id>` becomes "deadline (authorizationTtl)"; any other is shown as the store recorded it. */
export function consoleActor(recorded: string | null, deadlines: readonly MachineDeadline[]): ConsoleActor {
  if (recorded?.startsWith(DEADLINE_ACTOR_PREFIX)) {
    return { kind: 'deadline', text: deadlineActorText(deadlineName(recorded.slice(DEADLINE_ACTOR_PREFIX.length), deadlines)) };
  }
  return { kind: 'recorded', text: recorded ?? '—' };
}
