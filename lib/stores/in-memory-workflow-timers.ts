import { storeTimerNotHeld } from './stores.messages.js';
import type {
  WorkflowDueTimer,
  WorkflowPendingTimer,
  WorkflowTimerChanges,
  WorkflowTimerClaimRequest,
} from './workflow-timer.interface.js';

interface TimerEntry {
  machine: string;
  event: string;
  dueAt: number;
  token?: string;
  attempts: number;
}

/**
 * The timers of {@link InMemoryFsmStateStore}: by instance key, then timer id. Changes are
 * checked before any is made, so a commit that fails changes nothing (the store applies them
 * in the same synchronous turn as the state). @internal
 */
export class InMemoryWorkflowTimers {
  private readonly byKey = new Map<string, Map<string, TimerEntry>>();

  /** Throws when `changes.fired` is no longer held by its claim (the commit must then store nothing). */
  check(key: string, changes: WorkflowTimerChanges | undefined): void {
    const fired = changes?.fired;
    if (fired && this.byKey.get(key)?.get(fired.id)?.token !== fired.token) {
      throw new Error(storeTimerNotHeld(key, fired.id));
    }
  }

  /** Applies checked changes: the fired timer, then the cancelled ones, then the scheduled ones. */
  apply(key: string, changes: WorkflowTimerChanges | undefined): void {
    if (!changes) return;
    const timers = this.byKey.get(key) ?? new Map<string, TimerEntry>();
    if (changes.fired) timers.delete(changes.fired.id);
    for (const id of changes.cancel) timers.delete(id);
    for (const { id, event, dueAt } of changes.schedule) {
      timers.set(id, { machine: changes.machine, event, dueAt, attempts: 0 });
    }
    if (timers.size > 0) this.byKey.set(key, timers);
    else this.byKey.delete(key);
  }

  /** Forgets every timer of `key` (its instance is gone). */
  forget(key: string): void {
    this.byKey.delete(key);
  }

  /** Claims the earliest due timers: each moves to the end of its claim. */
  claimDue({ now, limit, token, leaseMs }: WorkflowTimerClaimRequest): WorkflowDueTimer[] {
    const due: Array<{ key: string; id: string; entry: TimerEntry }> = [];
    for (const [key, timers] of this.byKey) {
      for (const [id, entry] of timers) {
        if (entry.dueAt <= now) due.push({ key, id, entry });
      }
    }
    due.sort((a, b) => a.entry.dueAt - b.entry.dueAt);
    return due.slice(0, limit).map(({ key, id, entry }) => {
      entry.token = token;
      entry.dueAt = now + leaseMs;
      return { key, machine: entry.machine, id, event: entry.event, attempts: entry.attempts };
    });
  }

  /** Deletes a timer `token` holds. */
  drop(key: string, id: string, token: string): void {
    const timers = this.byKey.get(key);
    if (timers?.get(id)?.token !== token) return;
    timers.delete(id);
    if (timers.size === 0) this.byKey.delete(key);
  }

  /** Makes a timer `token` holds due again at `dueAt`, one attempt more. */
  retry(key: string, id: string, token: string, dueAt: number): void {
    const entry = this.byKey.get(key)?.get(id);
    if (entry?.token !== token) return;
    Object.assign(entry, { token: undefined, dueAt, attempts: entry.attempts + 1 });
  }

  /** The pending timers of `key`, earliest first. */
  pending(key: string): WorkflowPendingTimer[] {
    return [...(this.byKey.get(key) ?? [])]
      .map(([id, { event, dueAt, attempts }]) => ({ id, event, dueAt, attempts }))
      .sort((a, b) => a.dueAt - b.dueAt || (a.id < b.id ? -1 : 1));
  }
}
