/**
 * Runs one machine. States are dotted paths of state node keys (`'review'`,
 * `'review.legal'`); the engine is pure and keeps no instance of its own.
 */
export interface FsmEngine {
  /** Id of the machine this engine runs. */
  readonly machineId: string;
  /** Which engine this is, for messages and tests. */
  readonly kind: 'xstate' | 'table';
  /** The state a new instance starts in (resolved to a leaf path). */
  initialState(): string;
  /** Every state node path of the machine, parents included (`['review', 'review.legal']`). */
  statePaths(): string[];
  /** Every event name that appears in a transition. */
  eventNames(): string[];
  /** Whether `state` is `binding` or one of its descendants (XState's `matches`). */
  matches(state: string, binding: string): boolean;
  /** The state after `event` from `state`, or `undefined` when the event is not accepted there. */
  transition(state: string, event: string, input?: unknown): string | undefined;
  /** Whether `state` is a final state. */
  isFinal(state: string): boolean;
}
