import {
  machineParallelState,
  machineStateNameHasDot,
  machineUnknownInitial,
  machineUnknownState,
  machineUnknownTarget,
  tableEngineFeature,
  tableEngineNeedsXState,
} from '../mcp.messages.js';
import type { FsmEngine } from './fsm-engine.interface.js';
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

/**
 * Runs a flat machine from a transition table, without XState: string or `{ target }`
 * transitions to sibling states and `type: 'final'`. A config it cannot run exactly
 * throws at construction, naming what needs XState.
 */
export class TableFsmEngine implements FsmEngine {
  readonly kind = 'table';
  readonly machineId: string;
  private readonly states = new Map<string, TableState>();
  private readonly events = new Set<string>();
  private readonly initial: string;

  constructor(machine: McpMachine) {
    this.machineId = machine.id;
    const { config } = machine;
    this.checkNode(undefined, config, ROOT_KEYS, [undefined, 'compound']);
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
    this.initial = config.initial;
  }

  /** The machine's `initial` state. */
  initialState(): string {
    return this.initial;
  }

  /** Every state name, in document order. */
  statePaths(): string[] {
    return [...this.states.keys()];
  }

  /** Every event that appears in an `on` map, in document order. */
  eventNames(): string[] {
    return [...this.events];
  }

  /** Whether `state` is `binding` (a flat machine has no parents). */
  matches(state: string, binding: string): boolean {
    this.state(state);
    return state === binding;
  }

  /** The target of `event` in `state`, or `undefined` when `state` has none or is final. */
  transition(state: string, event: string): string | undefined {
    const current = this.state(state);
    return current.final ? undefined : current.on.get(event);
  }

  /** Whether `state` has `type: 'final'`. */
  isFinal(state: string): boolean {
    return this.state(state).final;
  }

  private state(name: string): TableState {
    const state = this.states.get(name);
    if (!state) {
      throw new Error(machineUnknownState(this.machineId, name));
    }
    return state;
  }

  private readState(name: string, node: McpStateNodeConfig): TableState {
    if (name.includes('.')) {
      throw new Error(machineStateNameHasDot(this.machineId, name));
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
      throw new Error(machineParallelState(this.machineId, state));
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
