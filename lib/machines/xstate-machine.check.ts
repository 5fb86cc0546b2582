import type { AnyStateNode } from 'xstate';
import { actionPlace, machineFeatureUnsupported, unsupportedFeature } from './machines.messages.js';

// Built-in actions other than assign and raise, as XState types them, with the name users write.
const BUILT_IN_ACTIONS: Readonly<Record<string, string>> = {
  'xstate.log': 'log()',
  'xstate.sendTo': 'sendTo()',
  'xstate.emit': 'emit()',
  'xstate.spawnChild': 'spawnChild()',
  'xstate.stopChild': 'stopChild()',
  'xstate.cancel': 'cancel()',
  'xstate.enqueueActions': 'enqueueActions()',
};

// The names an inline function gets from the config key it is written under.
const CONFIG_KEY_NAMES = new Set(['entry', 'exit', 'actions']);

interface BuiltInAction {
  (...args: never[]): unknown;
  type?: unknown;
  resolve?: unknown;
  delay?: unknown;
  to?: unknown;
  id?: unknown;
  sendId?: unknown;
}

/** The prefix of the ids XState gives the delayed raise and the cancel it writes for each `after` transition. */
const AFTER_ID = 'xstate.after.';

type Refusal = { feature: string; kind: 'action' | 'delayedRaise' };

/**
 * Throws when state node `node` uses what the gate cannot honour: it runs a machine step by
 * step on stored snapshots, never as a live actor, so only `assign` and immediate `raise`
 * actions can take effect (and `after`, whose timers the store keeps); a delayed `raise`,
 * invoked actors and every other action cannot.
 * @internal
 */
export function assertRunnableNode(machineId: string, node: AnyStateNode): void {
  const state = node.path.length ? node.path.join('.') : undefined;
  // Its memory is XState's history value, which the gate does not store: it would always resume at the default.
  if (node.type === 'history') {
    throw new Error(machineFeatureUnsupported(machineId, state, unsupportedFeature.history(), 'history'));
  }
  const { invoke } = node.config;
  if (invoke !== undefined && (!Array.isArray(invoke) || invoke.length > 0)) {
    throw new Error(machineFeatureUnsupported(machineId, state, unsupportedFeature.invoke(), 'invoke'));
  }
  const check = (actions: readonly unknown[], where: string): void => {
    for (const action of actions) {
      const refusal = refuseAction(action, node.machine.implementations.actions, where);
      if (refusal) {
        throw new Error(machineFeatureUnsupported(machineId, state, refusal.feature, refusal.kind));
      }
    }
  };
  check(node.entry, actionPlace.entry());
  check(node.exit, actionPlace.exit());
  // Only `initial: { target, actions }` has actions (and reading `node.initial` validates the target).
  if (typeof node.config.initial === 'object' && node.config.initial !== null) {
    check(node.initial.actions, actionPlace.initial());
  }
  for (const [descriptor, transitions] of node.transitions) {
    const where = descriptor.startsWith('xstate.done.state.')
      ? actionPlace.onDone()
      : descriptor === 'xstate.route'
        ? actionPlace.route()
        : actionPlace.event(descriptor);
    for (const transition of transitions) {
      check(transition.actions, where);
    }
  }
  for (const transition of node.always ?? []) {
    check(transition.actions, actionPlace.always());
  }
}

function refuseAction(action: unknown, implementations: Record<string, unknown>, where: string): Refusal | undefined {
  if (typeof action === 'function') {
    return refuseFunction(action as BuiltInAction, undefined, where);
  }
  // A string or `{ type, params }` names an implementation given to `setup({ actions })`.
  const name = typeof action === 'string' ? action : String((action as { type?: unknown } | null)?.type);
  const implementation = Object.hasOwn(implementations, name) ? implementations[name] : undefined;
  if (typeof implementation !== 'function') {
    return { feature: unsupportedFeature.action(`the action "${name}" (which has no implementation)`, where), kind: 'action' };
  }
  return refuseFunction(implementation as BuiltInAction, name, where);
}

function refuseFunction(action: BuiltInAction, name: string | undefined, where: string): Refusal | undefined {
  const type = 'resolve' in action && typeof action.type === 'string' ? action.type : undefined;
  if (type === 'xstate.assign' || isAfterTimer(action, type)) {
    return undefined;
  }
  if (type === 'xstate.raise') {
    return action.delay === undefined ? undefined : { feature: unsupportedFeature.delayedRaise(where), kind: 'delayedRaise' };
  }
  let label: string;
  if (type === undefined) {
    label = name
      ? `the custom action "${name}"`
      : action.name && !CONFIG_KEY_NAMES.has(action.name)
        ? `the inline action ${action.name}()`
        : 'an inline function action';
  } else {
    const builtIn =
      type === 'xstate.sendTo' && action.to === '#_parent'
        ? 'sendParent()'
        : Object.hasOwn(BUILT_IN_ACTIONS, type)
          ? BUILT_IN_ACTIONS[type]
          : `the built-in action "${type}"`;
    label = name ? `the action "${name}" (${builtIn})` : builtIn;
  }
  return { feature: unsupportedFeature.action(label, where), kind: 'action' };
}

/** Whether `action` is what XState writes for an `after` transition: its delayed raise (entry) or its cancel (exit), kept as a durable timer. */
function isAfterTimer(action: BuiltInAction, type: string | undefined): boolean {
  const id = type === 'xstate.raise' ? action.id : type === 'xstate.cancel' ? action.sendId : undefined;
  return typeof id === 'string' && id.startsWith(AFTER_ID);
}

/**
 * Whether every step of the machine under `node` depends on the state and the event only:
 * no guard and no action anywhere (so no context either), which lets an engine remember steps.
 * @internal
 */
export function isContextFreeNode(node: AnyStateNode): boolean {
  const transitions = [...[...node.transitions.values()].flat(), ...(node.always ?? [])];
  const initialActions = typeof node.config.initial === 'object' && node.config.initial !== null ? node.initial.actions : [];
  return (
    node.entry.length === 0 &&
    node.exit.length === 0 &&
    initialActions.length === 0 &&
    transitions.every((transition) => transition.guard === undefined && transition.actions.length === 0) &&
    Object.values(node.states).every(isContextFreeNode)
  );
}
