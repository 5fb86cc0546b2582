import type { MachineEngine, MachineState, MachineStep } from './machine-engine.interface.js';
import {
  machineStateNameHasDot,
  machineStateNameIsJson,
  machineUnknownInitial,
  machineUnknownTarget,
  tableEngineFeature,
  tableEngineNeedsXState,
} from './machines.messages.js';
import { copyContext } from './machine-context.js';
import type { McpMachine, McpStateNodeConfig, McpTransitionConfig } from './machine.interface.js';

// Keys that never change which state a flat machine is in; everything else needs XState.
const NEUTRAL_KEYS = ['description', 'meta', 'tags', 'id', 'output'];
const ROOT_KEYS = new Set([...NEUTRAL_KEYS, 'initial', 'states', 'type', 'context', 'types', 'version']);
const STATE_KEYS = new Set([...NEUTRAL_KEYS, 'type', 'on']);
// `reenter` only decides whether entry/exit actions run, and the table refuses those.
const TRANSITION_KEYS = new Set(['target', 'description', 'meta', 'reenter']);

interface TableState {
  readonly final: boolean;
  readonly on: ReadonlyMap<string, string>;
}

const IGNORED: MachineStep = { status: 'ignored' };

/**
 * Runs a flat machine from a transition table, without XState: string or `{ target }`
 * transitions to sibling states and `type: 'final'`. A config it cannot run exactly
 * throws at construction, naming what needs XState. The context is the config's
 * `context`; without actions, nothing ever changes it.
 */
export class TableMachineEngine implements MachineEngine {
  readonly kind = 'table';
  readonly machineId: string;
  private readonly states = new Map<string, TableState>();
  private readonly events = new Set<string>();
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
    return state === undefined || state.final ? [] : [...state.on.keys()];
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
   * Moves to the target of `event` in the instance's state, keeping its context; ignores the
   * event when the state has no transition for it, is final or is unknown. A table has no
   * guards, so neither the input nor the principal changes where an event leads.
   */
  transition(from: MachineState, event: string): MachineStep {
    const target = this.states.get(from.state)?.on.get(event);
    if (target === undefined || this.isFinal(from.state)) {
      return IGNORED;
    }
    return { status: 'moved', next: this.instance(target, from.context ?? this.start.context) };
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
    for (const [event, transition] of Object.entries(node.on ?? {})) {
      on.set(event, this.readTransition(name, event, transition));
      this.events.add(event);
    }
    return { final: node.type === 'final', on };
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
