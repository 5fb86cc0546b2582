import type { MachineDeadline, MachineEngine, MachineState, MachineStep, MachineTimer, MachineTimers } from './machine-engine.interface.js';
import {
  machineStateNameHasDot,
  machineStateNameIsJson,
  machineUnknownInitial,
  machineUnknownTarget,
  tableEngineFeature,
  tableEngineNeedsXState,
} from './machines.messages.js';
import { copyContext } from './machine-context.js';
import { movedStep, NO_TIMERS } from './machine-timers.js';
import type { McpMachine, McpStateNodeConfig, McpTransitionConfig } from './machine.interface.js';

// Keys that never change which state a flat machine is in; everything else needs XState.
const NEUTRAL_KEYS = ['description', 'meta', 'tags', 'id', 'output'];
const ROOT_KEYS = new Set([...NEUTRAL_KEYS, 'initial', 'states', 'type', 'context', 'types', 'version']);
const STATE_KEYS = new Set([...NEUTRAL_KEYS, 'type', 'on', 'after']);
// `reenter` decides whether a transition to its own state restarts the state's `after` timers.
const TRANSITION_KEYS = new Set(['target', 'description', 'meta', 'reenter']);

interface TableState {
  readonly final: boolean;
  /** Targets by event, the events of `after` included. */
  readonly on: ReadonlyMap<string, string>;
  /** Events whose transition to its own state re-enters it (`reenter: true`), restarting its timers. */
  readonly reenters: ReadonlySet<string>;
  /** The timers of its `after` transitions, scheduled whenever the state is entered. */
  readonly timers: readonly MachineTimer[];
}

const IGNORED: MachineStep = { status: 'ignored' };

/**
 * Runs a flat machine from a transition table, without XState: string or `{ target }`
 * transitions to sibling states, `type: 'final'`, and delayed transitions written as
 * XState's (`after: { 5000: 'expired' }`, milliseconds only), whose timers carry XState's
 * ids (`xstate.after.5000.<machine>.<state>`). A config it cannot run exactly
 * throws at construction, naming what needs XState. The context is the config's
 * `context`; without actions, nothing ever changes it.
 */
export class TableMachineEngine implements MachineEngine {
  readonly kind = 'table';
  readonly machineId: string;
  private readonly states = new Map<string, TableState>();
  private readonly events = new Set<string>();
  private readonly afters: MachineDeadline[] = [];
  private readonly start: MachineState;

  constructor(machine: McpMachine) {
    this.machineId = machine.id;
    const { config } = machine;
    this.checkNode(undefined, config, ROOT_KEYS, [undefined, 'compound']);
    const context = this.readContext(config.context);
    for (const [name, node] of Object.entries(config.states ?? {})) {
      this.states.set(name, this.readState(name, node));
    }
    for (const [name, state] of this.states) {
      for (const [event, target] of state.on) {
        if (!this.states.has(target)) {
          throw new Error(machineUnknownTarget(this.machineId, name, event, target));
        }
      }
    }
    if (typeof config.initial !== 'string' || !this.states.has(config.initial)) {
      throw new Error(machineUnknownInitial(this.machineId, config.initial, [...this.states.keys()]));
    }
    this.start = context === undefined ? { state: config.initial } : { state: config.initial, context };
  }

  /** The machine's `initial` state, with the config's `context`. */
  initial(): MachineState {
    return this.instance(this.start.state, this.start.context);
  }

  /** The timers of the initial state's `after` transitions. */
  initialTimers(): MachineTimers {
    return this.timersEntering(this.start.state, undefined);
  }

  /** Every `after` transition, by state (document order) and then as written. */
  deadlines(): readonly MachineDeadline[] {
    return this.afters;
  }

  /** Every state name, in document order. */
  statePaths(): string[] {
    return [...this.states.keys()];
  }

  /** Every event that appears in an `on` map, in document order. */
  eventNames(): string[] {
    return [...this.events];
  }

  /** The events of `binding`'s transitions; none in a final or unknown state. */
  eventsWhile(binding: string): readonly string[] {
    const state = this.states.get(binding);
    // An `after` event is XState's own (`xstate.after.…`), which no tool can send.
    return state === undefined || state.final ? [] : [...state.on.keys()].filter((event) => !event.startsWith('xstate.'));
  }

  /** Whether `state` is one of the machine's states. */
  knows(state: string): boolean {
    return this.states.has(state);
  }

  /** The bindings that are states of the machine (a flat machine's states are its stored values). */
  valuesMatching(bindings: readonly string[]): readonly string[] {
    return [...new Set(bindings.filter((binding) => this.states.has(binding)))];
  }

  /** Whether `state` is `binding` (a flat machine has no parents); `false` for an unknown state. */
  matches(state: string, binding: string): boolean {
    return this.states.has(state) && state === binding;
  }

  /**
   * Moves to the target of `event` (a tool's, or an `after` timer's) in the instance's state,
   * keeping its context; ignores the event when the state has no transition for it, is final
   * or is unknown. Leaving the state (or re-entering it) cancels its timers; entering the
   * target schedules the target's. A table has no guards, so neither the input nor the
   * principal changes where an event leads.
   */
  transition(from: MachineState, event: string): MachineStep {
    const state = this.states.get(from.state);
    const target = state?.on.get(event);
    if (state === undefined || target === undefined || state.final) {
      return IGNORED;
    }
    const stays = target === from.state && !state.reenters.has(event);
    const timers = stays ? NO_TIMERS : this.timersEntering(target, state);
    return movedStep(this.instance(target, from.context ?? this.start.context), timers);
  }

  private timersEntering(target: string, left: TableState | undefined): MachineTimers {
    const schedule = this.states.get(target)?.timers ?? [];
    const cancel = left?.timers.map((timer) => timer.id) ?? [];
    return schedule.length === 0 && cancel.length === 0 ? NO_TIMERS : { schedule, cancel };
  }

  /** Whether `state` has `type: 'final'`; `false` for an unknown state. */
  isFinal(state: string): boolean {
    return this.states.get(state)?.final ?? false;
  }

  private instance(state: string, context: Record<string, unknown> | undefined): MachineState {
    // The same rule as the XState engine: no context unless the machine declares one or it holds data.
    return context === undefined || (this.start.context === undefined && Object.keys(context).length === 0)
      ? { state }
      : { state, context: copyContext(this.machineId, context) };
  }

  private readContext(context: unknown): Record<string, unknown> | undefined {
    if (context === undefined) {
      return undefined;
    }
    const prototype = typeof context === 'object' && context !== null ? (Object.getPrototypeOf(context) as unknown) : undefined;
    if (Array.isArray(context) || (prototype !== Object.prototype && prototype !== null)) {
      this.refuse(undefined, tableEngineFeature.context());
    }
    return copyContext(this.machineId, context as object);
  }

  private readState(name: string, node: McpStateNodeConfig): TableState {
    if (name.includes('.')) {
      throw new Error(machineStateNameHasDot(this.machineId, name));
    }
    if (name.startsWith('{')) {
      throw new Error(machineStateNameIsJson(this.machineId, name));
    }
    this.checkNode(name, node, STATE_KEYS, [undefined, 'atomic', 'final']);
    const on = new Map<string, string>();
    const reenters = new Set<string>();
    const add = (event: string, transition: McpTransitionConfig | undefined) => {
      on.set(event, this.readTransition(name, event, transition));
      if (typeof transition === 'object' && transition !== null && (transition as { reenter?: unknown }).reenter === true) {
        reenters.add(event);
      }
    };
    for (const [event, transition] of Object.entries(node.on ?? {})) {
      add(event, transition);
      this.events.add(event);
    }
    const timers: MachineTimer[] = [];
    for (const [delay, transition] of Object.entries((node.after ?? {}) as Record<string, McpTransitionConfig>)) {
      const delayMs = Number(delay);
      if (!/^\d+$/.test(delay) || !Number.isSafeInteger(delayMs)) {
        this.refuse(name, tableEngineFeature.namedDelay(delay));
      }
      const event = `xstate.after.${delay}.${this.machineId}.${name}`;
      add(event, transition);
      timers.push(Object.freeze({ id: event, event, delayMs }));
      this.afters.push(Object.freeze({ state: name, event, delay }));
    }
    return { final: node.type === 'final', on, reenters, timers: Object.freeze(timers) };
  }

  private checkNode(
    state: string | undefined,
    node: McpStateNodeConfig,
    allowedKeys: ReadonlySet<string>,
    allowedTypes: ReadonlyArray<string | undefined>,
  ): void {
    if (node.type === 'parallel') {
      this.refuse(state, tableEngineFeature.parallel());
    }
    if (!allowedTypes.includes(node.type)) {
      this.refuse(state, tableEngineFeature.stateType(String(node.type)));
    }
    // Checked before the other keys so that a compound state's `initial` reads as nesting.
    if (state !== undefined && node.states !== undefined) {
      this.refuse(state, tableEngineFeature.nodeKey('states'));
    }
    for (const [key, value] of Object.entries(node)) {
      if (value !== undefined && !allowedKeys.has(key)) {
        this.refuse(state, tableEngineFeature.nodeKey(key));
      }
    }
  }

  private readTransition(state: string, event: string, transition: McpTransitionConfig | undefined): string {
    if (event === '*' || event.endsWith('.*')) {
      this.refuse(state, tableEngineFeature.wildcard(event));
    }
    if (Array.isArray(transition)) {
      this.refuse(state, tableEngineFeature.transitionArray(event));
    }
    const config = typeof transition === 'string' ? { target: transition } : transition;
    if (typeof config !== 'object' || config === null) {
      return this.refuse(state, tableEngineFeature.targetless(event));
    }
    for (const [key, value] of Object.entries(config)) {
      if (value !== undefined && !TRANSITION_KEYS.has(key)) {
        this.refuse(state, tableEngineFeature.transitionKey(key, event));
      }
    }
    const { target } = config as { target?: unknown };
    if (Array.isArray(target)) {
      this.refuse(state, tableEngineFeature.targetArray(event));
    }
    if (typeof target !== 'string') {
      return this.refuse(state, tableEngineFeature.targetless(event));
    }
    if (target.startsWith('.') || target.startsWith('#')) {
      this.refuse(state, tableEngineFeature.relativeTarget(target, event));
    }
    return target;
  }

  private refuse(state: string | undefined, feature: string): never {
    throw new Error(tableEngineNeedsXState(this.machineId, state, feature));
  }
}
