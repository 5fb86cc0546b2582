import type { McpGuardReason, McpMachineEvent } from './machine-access.js';
import type { McpMachine } from './machine.interface.js';

/** The reasons a machine gives for its guards (`defineMachine(..., { guardReasons })`), worked out for one refused event. */
export class GuardReasons {
  private readonly byGuard: ReadonlyMap<string, McpGuardReason>;

  constructor(machine: Pick<McpMachine, 'guardReasons'>) {
    this.byGuard = new Map(Object.entries(machine.guardReasons ?? {}));
  }

  /**
   * The reasons of the guards in `guards` that have one, in their order; a reason function
   * sees the context and the event. A reason that throws or answers no text is left out: the
   * call is refused all the same, and the model is never shown an error of the app's code.
   */
  of(
    guards: readonly string[],
    context: unknown,
    event: { type: string; input?: unknown; principal?: McpMachineEvent['principal']; approval?: McpMachineEvent['approval'] },
  ): string[] {
    const reasons: string[] = [];
    for (const guard of guards) {
      const reason = this.byGuard.get(guard);
      if (reason === undefined) continue;
      const text =
        typeof reason === 'string'
          ? reason
          : attempt(() => reason({ context: (context ?? {}) as Record<string, unknown>, event: event as McpMachineEvent }));
      if (typeof text === 'string' && text !== '') reasons.push(text);
    }
    return reasons;
  }
}

function attempt(work: () => string): string | undefined {
  try {
    return work();
  } catch {
    return undefined;
  }
}
