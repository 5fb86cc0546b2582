import type { McpMachineApproval, McpPrincipal } from './machine-access.js';

/** What an instance of a machine is: its state value and its XState context. */
export interface MachineState {
  /**
   * The state value as stored, always down to the leaves: a dotted path of state node keys
   * (`'review'`, `'review.legal'`) when the value is one chain, or else (several regions of a
   * parallel state are active) the XState state value as JSON with the keys of every level
   * in document order (`'{"order":{"shipping":"packed","billing":"paid"}}'`; a region without
   * child states is `{}`). Each configuration has exactly this one spelling; any other (a
   * parent path, other key order, a missing region) is a state the engine does not know.
   */
  state: string;
  /** The XState context (JSON data); `undefined` for a machine that declares no context (and assigns none). */
  context?: Record<string, unknown>;
}

/**
 * A delayed event a transition schedules (an `after` transition of a state it enters): the
 * durable timer the store keeps until it fires or the state is left.
 */
export interface MachineTimer {
  /** The timer's id, unique within one instance (XState's: `xstate.after.<delay>.<state node id>`). */
  readonly id: string;
  /** The event it sends to the instance when it fires. */
  readonly event: string;
  /** How long after the transition it fires, in milliseconds (a named delay already resolved). */
  readonly delayMs: number;
}

/** The timers one transition starts and stops: `cancel` (the states it leaves) applies before `schedule`. */
export interface MachineTimers {
  /** Timers of the states it enters. */
  readonly schedule: readonly MachineTimer[];
  /** Ids of the timers of the states it leaves. */
  readonly cancel: readonly string[];
}

/** A transition no tool fires: an `after` transition of a state, by the event its timer sends. */
export interface MachineDeadline {
  /** The state node path it belongs to (`'authorized'`, `'review.legal'`). */
  readonly state: string;
  /** The event its timer sends (`'xstate.after.ttl.payment.authorized'`). */
  readonly event: string;
  /** The delay as written: milliseconds (`'5000'`) or the name of a `delays` implementation (`'ttl'`). */
  readonly delay: string;
}

/** The outcome of sending one event to an instance. */
export type MachineStep =
  /**
   * A transition was enabled; `next` is the instance after it (possibly equal to the current
   * one), `timers` the timers it schedules and cancels (left out when it touches none).
   */
  | { status: 'moved'; next: MachineState; timers?: MachineTimers }
  /**
   * Transitions for the event exist in this state, but every guard said no; `guards` names them,
   * `reasons` says why, for the guards that have a reason (`guardReasons`), in the same order
   * (absent when none has).
   */
  | { status: 'guarded'; guards: string[]; reasons?: string[] }
  /** No transition of the current state accepts the event (or the machine is done). */
  | { status: 'ignored' };

/**
 * Runs one machine. It is pure and keeps no instance of its own: the gate loads an instance
 * from the store, asks the engine, and stores what it answers.
 */
export interface MachineEngine {
  /** Id of the machine this engine runs. */
  readonly machineId: string;
  /** Which engine this is, for messages and tests. */
  readonly kind: 'xstate' | 'table';
  /**
   * The instance a new workflow starts as (after XState's initial transition: leaf state,
   * initial context). `input` is the machine's input (a start tool's arguments), which an
   * XState context factory reads; without it, the input is `undefined`.
   */
  initial(input?: unknown): MachineState;
  /** The timers the initial transition schedules (the `after` transitions of the initial states), with `input` as for {@link initial}. */
  initialTimers(input?: unknown): MachineTimers;
  /** Every `after` transition of the machine, in document order: what a deadline can fire. */
  deadlines(): readonly MachineDeadline[];
  /** Every state node path of the machine, parents included (`['review', 'review.legal']`), in document order. */
  statePaths(): string[];
  /** Every event name that appears in a transition. */
  eventNames(): string[];
  /**
   * The event descriptors (`'SUBMIT'`, and for XState also `'*'` or `'prefix.*'`) of every
   * transition that can be taken while `binding` is active, guards aside: those of the state
   * nodes active in some configuration that matches `binding`. `undefined` when there are too
   * many configurations to tell (see `valuesMatching`).
   */
  eventsWhile(binding: string): readonly string[] | undefined;
  /**
   * Whether `state` is a state value this machine can be in, spelled as the engine stores it:
   * every key exists in its place, with a leaf in each active region (a stored value from an
   * older machine may not be).
   */
  knows(state: string): boolean;
  /**
   * The stored state values (as `MachineState.state` spells them) that match any of
   * `bindings`, or `undefined` when there are too many to list (more than 256: parallel
   * states with many combinations); the store uses the list for an exact-match claim.
   */
  valuesMatching(bindings: readonly string[]): readonly string[] | undefined;
  /** Whether the instance is in `binding` or one of its descendants (XState's `matches`); `false` for an unknown state. */
  matches(state: string, binding: string): boolean;
  /**
   * Sends `{ type: event, input, principal, approval }` to the instance; guards and actions read
   * `context` (the initial context when `from` has none), `event.input`, `event.principal` (whose
   * step it is, `undefined` for an anonymous caller) and `event.approval` (the second person who
   * approved the call, when it waited for one). An unknown stored state ignores every event.
   */
  transition(from: MachineState, event: string, input?: unknown, principal?: McpPrincipal, approval?: McpMachineApproval): MachineStep;
  /** Whether the machine is done in `state` (a top-level final state); `false` for an unknown state. */
  isFinal(state: string): boolean;
}
