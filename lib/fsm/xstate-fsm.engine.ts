import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, StateValue } from 'xstate';
import {
  machineParallelState,
  machineStateNameHasDot,
  machineUnknownInitial,
  machineUnknownState,
} from '../mcp.messages.js';
import type { FsmEngine } from './fsm-engine.interface.js';
import type { McpMachine } from './machine.interface.js';
import type { XStateModule } from './xstate.loader.js';

/**
 * Runs a machine on XState v5's pure APIs: nested states, guards (which read the tool's
 * arguments as `event.input`) and eventless transitions; actions are resolved, never run.
 * Parallel states are refused at construction: an instance stores one state path.
 */
export class XStateFsmEngine implements FsmEngine {
  readonly kind = 'xstate';
  readonly machineId: string;
  private readonly machine: AnyStateMachine;
  private readonly paths = new Set<string>();
  private readonly events = new Set<string>();
  private readonly snapshots = new Map<string, AnyMachineSnapshot>();
  private readonly initial: string;
  private readonly context: unknown;

  constructor(
    machine: McpMachine,
    private readonly xstate: XStateModule,
  ) {
    this.machineId = machine.id;
    this.machine =
      (machine.xstateMachine as AnyStateMachine | undefined) ??
      xstate.createMachine(machine.config as Parameters<XStateModule['createMachine']>[0]);
    this.collect(this.machine.root);
    const [initialSnapshot] = xstate.initialTransition(this.machine);
    this.initial = toPath(initialSnapshot.value);
    this.context = initialSnapshot.context;
    if (!this.paths.has(this.initial)) {
      throw new Error(machineUnknownInitial(this.machineId, this.machine.config.initial, [...this.paths]));
    }
  }

  /** The leaf state a new instance is in after XState's initial transition. */
  initialState(): string {
    return this.initial;
  }

  /** Every state node path, parents before their children, in document order. */
  statePaths(): string[] {
    return [...this.paths];
  }

  /** Every event that appears in an `on` map of any state node, the root included. */
  eventNames(): string[] {
    return [...this.events];
  }

  /** Whether `state` is `binding` or one of its descendants (XState's `snapshot.matches`). */
  matches(state: string, binding: string): boolean {
    return this.resolve(state).matches(this.xstate.pathToStateValue(binding.split('.')));
  }

  /**
   * The leaf state after `{ type: event, input }`, or `undefined` when no transition is
   * enabled (unknown event, every guard false) or the machine is done.
   */
  transition(state: string, event: string, input?: unknown): string | undefined {
    const snapshot = this.resolve(state);
    if (snapshot.status !== 'active') {
      return undefined;
    }
    const xEvent = { type: event, input };
    // `transition` returns the very same snapshot both for an ignored event and for a
    // self-transition without actions, so only the enabled transitions tell them apart.
    if (this.machine.getTransitionData(snapshot, xEvent).length === 0) {
      return undefined;
    }
    return toPath(this.xstate.transition(this.machine, snapshot, xEvent)[0].value);
  }

  /** Whether the machine is done in `state` (a top-level final state). */
  isFinal(state: string): boolean {
    return this.resolve(state).status === 'done';
  }

  private resolve(state: string): AnyMachineSnapshot {
    let snapshot = this.snapshots.get(state);
    if (!snapshot) {
      if (!this.paths.has(state)) {
        throw new Error(machineUnknownState(this.machineId, state));
      }
      // Only the state path is stored per instance, so guards see the machine's initial context.
      snapshot = this.machine.resolveState({
        value: this.xstate.pathToStateValue(state.split('.')),
        context: this.context,
      });
      this.snapshots.set(state, snapshot);
    }
    return snapshot;
  }

  private collect(node: AnyStateNode): void {
    const path = node.path.join('.');
    if (node.type === 'parallel') {
      throw new Error(machineParallelState(this.machineId, path || undefined));
    }
    if (path && node.key.includes('.')) {
      throw new Error(machineStateNameHasDot(this.machineId, node.key));
    }
    // A history node is a pseudo-state: no instance is ever in it, so it is no path.
    if (node.type === 'history') {
      return;
    }
    if (path) {
      this.paths.add(path);
    }
    for (const event of Object.keys(node.config.on ?? {})) {
      this.events.add(event);
    }
    for (const child of Object.values(node.states)) {
      this.collect(child);
    }
  }
}

function toPath(value: StateValue): string {
  return toKeys(value).join('.');
}

// Without parallel states, every level of a state value has exactly one key.
function toKeys(value: StateValue): string[] {
  if (typeof value === 'string') {
    return [value];
  }
  return Object.entries(value).flatMap(([key, child]) => [key, ...(child === undefined ? [] : toKeys(child))]);
}
