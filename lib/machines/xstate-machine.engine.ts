import type { AnyActorScope, AnyMachineSnapshot, AnyStateMachine, AnyStateNode, ExecutableActionObject, StateValue } from 'xstate';
import type { MachineDeadline, MachineEngine, MachineState, MachineStep, MachineTimers } from './machine-engine.interface.js';
import {
  machineInitialFailed,
  machineSpawnedActor,
  machineStateNameHasDot,
  machineStateNameIsJson,
  machineUnexpectedValue,
  machineUnknownInitial,
} from './machines.messages.js';
import type { McpMachineApproval, McpPrincipal } from './machine-access.js';
import { copyContext } from './machine-context.js';
import { GuardReasons } from './guard-reasons.js';
import { movedStep, timersOfActions } from './machine-timers.js';
import type { McpMachine } from './machine.interface.js';
import { assertRunnableNode, isContextFreeNode } from './xstate-machine.check.js';
import {
  childNodes,
  decodeStateValue,
  encodeStateValue,
  enumerateStateValues,
  normalizeStateValue,
  stateValueMatches,
} from './xstate-state-value.js';
import type { XStateModule } from './xstate.loader.js';
import { guardName, matchesEventDescriptor } from './xstate-transition-names.js';

/** The most state values `valuesMatching` lists; beyond it, the store cannot claim by exact match. */
const MAX_MATCHING_STATE_VALUES = 256;

// Decoded stored values and remembered steps, kept for the states instances are actually in; cleared when full.
const MAX_CACHED_STATE_VALUES = 1024;

interface DecodedState {
  readonly value: StateValue;
  readonly final: boolean;
}

const IGNORED: MachineStep = { status: 'ignored' };

/**
 * Runs a machine on XState v5's pure APIs (`initialTransition`, `transition`): nested and
 * parallel states, guards (which read `context` and the tool's arguments as `event.input`),
 * `assign`, eventless transitions, immediate `raise` and `after` (delayed transitions, whose
 * timers each step answers for the store to keep). Each call starts from the stored instance
 * and answers the next one; nothing runs between calls, so a machine with invoked actors or
 * other actions is refused at construction.
 */
export class XStateMachineEngine implements MachineEngine {
  readonly kind = 'xstate';
  readonly machineId: string;
  private readonly machine: AnyStateMachine;
  private readonly paths: string[] = [];
  private readonly events = new Set<string>();
  private readonly afters: MachineDeadline[] = [];
  private readonly decoded = new Map<string, DecodedState | undefined>();
  /** Steps of a machine without guards, actions or context, by state and event; `undefined` for any other machine. */
  private readonly steps?: Map<string, MachineStep>;
  private readonly start: MachineState;
  private readonly startTimers: MachineTimers;
  private readonly hasContext: boolean;
  private readonly reasons: GuardReasons;
  /**
   * The timers of the latest initial transition made with an input, and that input: a start
   * asks for the initial state and then for its timers with the same arguments, and XState's
   * initial transition (the actor scope, the context factory, the entry actions) is the
   * costliest part of a start. Only the same input object finds them.
   */
  private lastStart?: { readonly input: unknown; readonly timers: MachineTimers };
  /**
   * The actor scope every step runs in, made once: it runs no action, and hands each to the
   * step that collects it. XState's pure `transition` and `initialTransition` build one for
   * every call, creating an actor (which computes the machine's initial state) and two actor
   * systems each time; a machine that spawns or invokes actors, which alone would register in
   * the scope's system, is refused at construction.
   */
  private inert?: AnyActorScope;

  constructor(
    machine: McpMachine,
    private readonly xstate: XStateModule,
  ) {
    this.machineId = machine.id;
    this.machine =
      (machine.xstateMachine as AnyStateMachine | undefined) ??
      xstate.createMachine(machine.config as Parameters<XStateModule['createMachine']>[0]);
    this.hasContext = this.machine.config.context !== undefined;
    this.reasons = new GuardReasons(machine);
    this.collect(this.machine.root);
    if (childNodes(this.machine.root).length === 0) {
      throw new Error(machineUnknownInitial(this.machineId, this.machine.config.initial, this.paths));
    }
    [this.start, this.startTimers] = this.initialWith(undefined);
    // A named delay may read the event: steps of a machine with `after` are never remembered.
    if (!this.hasContext && this.start.context === undefined && this.afters.length === 0 && isContextFreeNode(this.machine.root)) {
      this.steps = new Map();
    }
  }

  /**
   * The leaf state value and context after XState's initial transition (entry `assign`s
   * applied), with `input` as the machine's input (a context factory reads it).
   */
  initial(input?: unknown): MachineState {
    return input === undefined ? this.copy(this.start) : this.startWith(input).state;
  }

  /**
   * The timers of the `after` transitions of the initial states, their named delays read with
   * `input` as the machine's input; asked right after {@link initial} with the same input, they
   * come from the same initial transition.
   */
  initialTimers(input?: unknown): MachineTimers {
    if (input === undefined) return this.startTimers;
    const last = this.lastStart;
    return last?.input === input ? last.timers : this.startWith(input).timers;
  }

  /** Every `after` transition, by state node (document order) and then as written. */
  deadlines(): readonly MachineDeadline[] {
    return this.afters;
  }

  /** Every state node path, parallel regions included, parents before their children, in document order. */
  statePaths(): string[] {
    return [...this.paths];
  }

  /** Every event that appears in an `on` map of any state node, the root included. */
  eventNames(): string[] {
    return [...this.events];
  }

  /**
   * The descriptors of the transitions of every state node (ancestors and other parallel
   * regions included) active in a configuration where `binding` is active; none in a done one.
   */
  eventsWhile(binding: string): readonly string[] | undefined {
    const values = enumerateStateValues(this.machine.root, binding.split('.'), MAX_MATCHING_STATE_VALUES);
    if (values === undefined) {
      return undefined;
    }
    const descriptors = new Set<string>();
    for (const value of values) {
      const snapshot = this.machine.resolveState({ value, context: {} });
      if (snapshot.status === 'done') {
        continue;
      }
      for (const node of snapshot._nodes) {
        for (const descriptor of node.transitions.keys()) {
          // `onDone` is a transition on XState's own done event, which no tool can send.
          if (!descriptor.startsWith('xstate.')) {
            descriptors.add(descriptor);
          }
        }
      }
    }
    return [...descriptors];
  }

  /** Whether `state` is a complete configuration of this machine, spelled as the engine stores it. */
  knows(state: string): boolean {
    return this.decode(state) !== undefined;
  }

  /**
   * Every stored state value in which one of `bindings` is active, in binding order and then
   * document order; `undefined` when there are more than {@link MAX_MATCHING_STATE_VALUES}.
   */
  valuesMatching(bindings: readonly string[]): readonly string[] | undefined {
    const values = new Set<string>();
    for (const binding of bindings) {
      const matching = enumerateStateValues(this.machine.root, binding.split('.'), MAX_MATCHING_STATE_VALUES);
      if (matching === undefined) {
        return undefined;
      }
      for (const value of matching) {
        values.add(encodeStateValue(value));
      }
      if (values.size > MAX_MATCHING_STATE_VALUES) {
        return undefined;
      }
    }
    return [...values];
  }

  /**
   * Whether `binding` or one of its descendants is active in `state` (XState's
   * `snapshot.matches(pathToStateValue(binding.split('.')))`); `false` for an unknown state.
   */
  matches(state: string, binding: string): boolean {
    const decoded = this.decode(state);
    return decoded !== undefined && stateValueMatches(decoded.value, binding.split('.'));
  }

  /**
   * Sends `{ type: event, input, principal, approval }` to the instance, with its context (the
   * initial context when it has none; `principal` and `approval` only when there is one). An
   * unknown stored state, or a done machine, ignores every event. A machine without guards,
   * actions or context answers from its remembered steps (which no principal changes).
   */
  transition(from: MachineState, event: string, input?: unknown, principal?: McpPrincipal, approval?: McpMachineApproval): MachineStep {
    if (!this.steps) {
      return this.step(from, event, input, principal, approval);
    }
    const key = `${from.state}\u0000${event}`;
    let step = this.steps.get(key);
    if (step === undefined) {
      step = freezeStep(this.step(from, event, input));
      if (this.steps.size >= MAX_CACHED_STATE_VALUES) {
        this.steps.clear();
      }
      this.steps.set(key, step);
    }
    return step;
  }

  /** Whether the machine is done in `state` (a top-level final state); `false` for an unknown state. */
  isFinal(state: string): boolean {
    return this.decode(state)?.final ?? false;
  }

  private step(from: MachineState, event: string, input: unknown, principal?: McpPrincipal, approval?: McpMachineApproval): MachineStep {
    const decoded = this.decode(from.state);
    if (decoded === undefined || decoded.final) {
      return IGNORED;
    }
    const snapshot = this.machine.resolveState({
      value: decoded.value,
      context: copyContext(this.machineId, from.context ?? this.start.context ?? {}),
    });
    const xEvent = { type: event, input, ...(principal && { principal }), ...(approval && { approval }) };
    const [next, actions] = this.inertly((scope) => this.machine.transition(snapshot, xEvent, scope));
    // `transition` returns the very same snapshot both for an ignored event and for a
    // self-transition without actions, so only then do the enabled transitions tell them apart.
    if (next === snapshot && this.machine.getTransitionData(snapshot, xEvent).length === 0) {
      const guards = this.guardsFor(snapshot, event);
      if (!guards.length) return IGNORED;
      const reasons = this.reasons.of(guards, snapshot.context, xEvent);
      return reasons.length ? { status: 'guarded', guards, reasons } : { status: 'guarded', guards };
    }
    if (next.status === 'error') {
      throw next.error;
    }
    const value = normalizeStateValue(this.machine.root, next.value);
    if (value === undefined) {
      throw new Error(machineUnexpectedValue(this.machineId, next.value));
    }
    return movedStep(this.toInstance(next, value), timersOfActions(actions));
  }

  /** The initial transition with `input`, remembered as the latest one. */
  private startWith(input: unknown): { state: MachineState; timers: MachineTimers } {
    const [state, timers] = this.initialWith(input);
    this.lastStart = { input, timers };
    return { state, timers };
  }

  private initialWith(input: unknown): [MachineState, MachineTimers] {
    const [snapshot, actions] = this.inertly((scope) => this.machine.getInitialSnapshot(scope, input));
    if (snapshot.status === 'error') {
      throw new Error(machineInitialFailed(this.machineId, reasonOf(snapshot.error)));
    }
    const value = normalizeStateValue(this.machine.root, snapshot.value);
    if (value === undefined) {
      throw new Error(machineUnknownInitial(this.machineId, this.machine.config.initial, this.paths));
    }
    return [this.toInstance(snapshot, value), timersOfActions(actions)];
  }

  /** Runs a step of the machine in the inert scope: its snapshot, and the actions it would run (collected, not run). */
  private inertly(step: (scope: AnyActorScope) => AnyMachineSnapshot): [AnyMachineSnapshot, ExecutableActionObject[]] {
    const scope = (this.inert ??= this.inertScope());
    const actions: ExecutableActionObject[] = [];
    scope.actionExecutor = (action) => {
      actions.push(action);
    };
    try {
      return [step(scope), actions];
    } finally {
      scope.actionExecutor = ignore;
    }
  }

  /** An actor scope like the one XState's pure functions make (see {@link inert}), on an actor of this machine that never starts. */
  private inertScope(): AnyActorScope {
    const self = this.xstate.createActor(this.machine);
    return {
      self,
      id: '',
      sessionId: '',
      logger: ignore,
      defer: ignore,
      emit: ignore,
      system: self.system,
      stopChild: ignore,
      actionExecutor: ignore,
    };
  }

  private decode(state: string): DecodedState | undefined {
    if (this.decoded.has(state)) {
      return this.decoded.get(state);
    }
    const value = decodeStateValue(this.machine.root, state);
    const decoded = value === undefined ? undefined : { value, final: this.machine.resolveState({ value, context: {} }).status === 'done' };
    if (this.decoded.size >= MAX_CACHED_STATE_VALUES) {
      this.decoded.clear();
    }
    this.decoded.set(state, decoded);
    return decoded;
  }

  /** The names of the guards of the active state nodes' transitions for `event` (all of which said no). */
  private guardsFor(snapshot: AnyMachineSnapshot, event: string): string[] {
    const names = new Set<string>();
    for (const node of snapshot._nodes) {
      for (const [descriptor, transitions] of node.transitions) {
        if (!matchesEventDescriptor(event, descriptor)) {
          continue;
        }
        for (const { guard } of transitions) {
          if (guard !== undefined) {
            names.add(guardName(guard));
          }
        }
      }
    }
    return [...names];
  }

  private toInstance(snapshot: AnyMachineSnapshot, value: StateValue): MachineState {
    if (Object.keys(snapshot.children).length > 0) {
      throw new Error(machineSpawnedActor(this.machineId));
    }
    const context = copyContext(this.machineId, snapshot.context as object);
    return this.hasContext || Object.keys(context).length > 0
      ? { state: encodeStateValue(value), context }
      : { state: encodeStateValue(value) };
  }

  private copy(instance: MachineState): MachineState {
    return instance.context === undefined
      ? { state: instance.state }
      : { state: instance.state, context: copyContext(this.machineId, instance.context) };
  }

  private collect(node: AnyStateNode): void {
    const path = node.path.join('.');
    if (path && node.key.includes('.')) {
      throw new Error(machineStateNameHasDot(this.machineId, node.key));
    }
    if (node.path.length === 1 && node.key.startsWith('{')) {
      throw new Error(machineStateNameIsJson(this.machineId, node.key));
    }
    assertRunnableNode(this.machineId, node);
    if (path) {
      this.paths.push(path);
    }
    for (const event of Object.keys(node.config.on ?? {})) {
      this.events.add(event);
    }
    for (const { eventType, delay } of node.after) {
      this.afters.push(Object.freeze({ state: path, event: eventType, delay: String(delay) }));
    }
    for (const child of Object.values(node.states)) {
      this.collect(child);
    }
  }
}

/** A remembered step is shared by every call that takes it, so nobody may change it. */
function freezeStep(step: MachineStep): MachineStep {
  if (step.status === 'moved') {
    Object.freeze(step.next);
  }
  return Object.freeze(step);
}

/** What the inert scope does with what it is asked to run outside a step: nothing. */
function ignore(): void {}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
