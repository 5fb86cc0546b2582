import type { McpMachineRegistry } from '../machines/machine-registry.js';
import { JsonRpcError } from '../results/json-rpc.error.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import type { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { authOf, mayAccess } from './workflow-access.js';
import type { WorkflowCallOutcome } from './workflow-call-outcome.js';
import type { WorkflowCall } from './workflow-call.js';
import type { WorkflowGateObserver } from './workflow-gate-observer.interface.js';
import { isWellFormedHandle } from './workflow-handle.js';
import type { WorkflowRefusal } from './workflow-refusal.js';
import type { WorkflowRefusals } from './workflow-refusals.js';

/** What the check reads: the machines, the store and the refusals of the gate, and the observer it tells of a refusal. */
export interface HiddenToolParts {
  readonly machines: McpMachineRegistry;
  readonly store: FsmStoreAdapter;
  readonly refusals: WorkflowRefusals;
  readonly observer: WorkflowGateObserver;
}

/**
 * The outcome of a call whose pipeline threw `error` before the gate entered it: the refusal of
 * a tool hidden in its instance's state (see {@link hiddenToolRefusal}), told to the observer
 * as the gate's, or the error as it is; a protocol-level error (the shutdown cutoff among them)
 * is answered as it is.
 */
export async function refusedBeforeGate(call: WorkflowCall, error: unknown, parts: HiddenToolParts): Promise<WorkflowCallOutcome> {
  const hidden = error instanceof JsonRpcError ? undefined : await hiddenToolRefusal(call, parts);
  if (hidden) {
    parts.observer.settled(call, { refusal: hidden, abandoned: false, asking: false });
  }
  return { call, status: 'failed', error: hidden ?? error, refusal: hidden, state: undefined };
}

/**
 * The refusal a call of a tool bound to states answers when the app's pipeline failed it
 * before the gate admitted it (a guard, a pipe or an interceptor of the app threw): FORBIDDEN
 * with the allowed actions, when the call's instance is the caller's and its state does not
 * allow the tool. An unknown instance, another principal's, or one the store cannot read tells
 * nothing (`undefined`): the app's own error stands.
 */
export async function hiddenToolRefusal(
  call: WorkflowCall,
  { machines, store, refusals }: HiddenToolParts,
): Promise<WorkflowRefusal | undefined> {
  const { role } = call.tool;
  if (role.kind !== 'bound' && role.kind !== 'transition') {
    return undefined;
  }
  const { machine } = role;
  const engine = machines.engine(machine);
  const handleKey = machines.machine(machine).stateHandleKey;
  const handle = handleKey ? call.args[handleKey] : undefined;
  const storeKey = handleKey
    ? isWellFormedHandle(handle) && formatInstanceKey({ machine, scope: 'handle', id: handle })
    : call.caller.sessionStoreKey(machine);
  if (!storeKey) {
    return undefined;
  }
  const stored = await store.load(storeKey).catch(() => undefined);
  const state = stored?.state ?? (handleKey ? undefined : engine.initial().state);
  if (
    state === undefined ||
    (stored &&
      !mayAccess(
        authOf(call),
        machines.machine(machine),
        { machine, scope: handleKey ? 'handle' : 'session', handle: handle as string },
        stored,
      )) ||
    !engine.knows(state) ||
    role.states.some((bound) => engine.matches(state, bound))
  ) {
    return undefined;
  }
  return refusals.forbidden(call, machine, state);
}
