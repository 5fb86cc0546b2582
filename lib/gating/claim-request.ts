import { randomUUID } from 'node:crypto';
import type { MachineEngine } from '../machines/machine-engine.interface.js';
import type { McpMachine } from '../machines/machine.interface.js';
import type { McpTransitionRole } from '../registry/mcp-handler-role.js';
import type { WorkflowClaimRequest } from '../stores/atomic-fsm-state-store.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { FsmLockOutcome } from '../stores/locks/fsm-instance-lock.interface.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import type { WorkflowInstanceRef } from './workflow-call-outcome.js';
import type { WorkflowCall } from './workflow-call.js';
import type { WorkflowDenialReason } from './workflow-denial.js';
import { claimAccessOf } from './workflow-access.js';

/** What a transition claims: the stored values it is bound to (`undefined`: too many to list), and whether the initial state is one. */
interface ClaimStates {
  readonly allowedStates: readonly string[] | undefined;
  readonly fromInitial: boolean;
}

/** The claim states of each transition role, worked out on its first call: the same for every call. */
const claimStatesByRole = new WeakMap<McpTransitionRole, ClaimStates>();

function claimStates(role: McpTransitionRole, engine: MachineEngine): ClaimStates {
  let states = claimStatesByRole.get(role);
  if (!states) {
    const initial = engine.initial().state;
    states = {
      allowedStates: engine.valuesMatching(role.states),
      fromInitial: role.states.some((state) => engine.matches(initial, state)),
    };
    claimStatesByRole.set(role, states);
  }
  return states;
}

/**
 * The claim of `instance` for a call of a transition: on the stored values its states match, with a
 * fresh lease token, for the caller as `machine`'s access rule sees it (its principal, its team);
 * a session's (or a principal's) instance not stored yet is created in the initial state when
 * that state is one of them, owned by the caller (the console's owner).
 */
export function claimRequest(
  call: WorkflowCall,
  instance: WorkflowInstanceRef,
  role: McpTransitionRole,
  engine: MachineEngine,
  leaseMs: number,
  machine: Pick<McpMachine, 'access'>,
): WorkflowClaimRequest {
  const { allowedStates, fromInitial } = claimStates(role, engine);
  const owner = instance.scope === 'session' || instance.scope === 'principal' ? call.principal : undefined;
  const createWith =
    instance.scope !== 'handle' && fromInitial
      ? { ...engine.initial(), updatedAt: new Date().toISOString(), ...(owner === undefined ? {} : { owner }) }
      : undefined;
  const access = claimAccessOf(call.context.authInfo, machine, instance);
  return { key: instance.storeKey, allowedStates, token: randomUUID(), leaseMs, ...access, createWith };
}

/**
 * Why a claim the store did not grant refuses the call: an unknown handle, or BUSY or FORBIDDEN in
 * the state the store found (`found`; a session's instance not stored yet is in its `initial` state).
 */
export function claimDenial(
  instance: WorkflowInstanceRef,
  outcome: Exclude<FsmLockOutcome, { status: 'claimed' }>,
  handleKey: string,
  initial: () => WorkflowSnapshot,
): { reason: WorkflowDenialReason; found?: WorkflowSnapshot } {
  const { machine } = instance;
  if (outcome.status === 'unknown' && instance.scope === 'handle') {
    return { reason: { code: 'UNKNOWN_HANDLE', machine, key: handleKey, handle: instance.handle } };
  }
  const found = outcome.status === 'unknown' ? initial() : { state: outcome.state, updatedAt: new Date().toISOString() };
  return { reason: { code: outcome.status === 'busy' ? 'BUSY' : 'FORBIDDEN', machine, state: found.state }, found };
}

/** The history row of a call's stored change of `instance` (`from`: `null` for a start). */
export function transitionRecord(
  call: WorkflowCall,
  instance: WorkflowInstanceRef,
  change: Pick<WorkflowTransitionRecord, 'from' | 'to' | 'event' | 'at'>,
): WorkflowTransitionRecord {
  const principal = call.principal ?? call.context.sessionId ?? null;
  return { machine: instance.machine, key: instance.storeKey, ...change, tool: call.tool.name, principal };
}
