import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { MachineEngine } from '../machines/machine-engine.interface.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpGatedRole, McpStartRole, McpTransitionRole } from '../registry/mcp-handler-role.js';
import type { WorkflowClaimRequest } from '../stores/atomic-fsm-state-store.interface.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { FsmLockOutcome } from '../stores/locks/fsm-instance-lock.interface.js';
import type { ConfirmationSubject } from './workflow-confirmations.js';
import { WorkflowApprovals } from './workflow-approvals.js';
import * as messages from './gating.messages.js';
import { UnknownStateReporter } from './unknown-state.reporter.js';
import { authOf, claimAccessOf, mayAccess, starterOf } from './workflow-access.js';
import type { WorkflowAdmission, WorkflowHold, WorkflowInstanceRef } from './workflow-step-values.js';
import type { WorkflowCall } from './workflow-call.js';
import { deny, storeFailure, WorkflowDenial, type WorkflowDenialReason } from './workflow-denial.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';
import { SILENT_GATE_OBSERVER, WORKFLOW_GATE_OBSERVER, type WorkflowGateObserver } from './workflow-gate-observer.interface.js';
import { isWellFormedHandle, mintHandle } from './workflow-handle.js';

/** What a transition claims: the stored values it is bound to (`undefined`: too many to list), and whether the initial state is one. */
interface ClaimStates {
  readonly allowedStates: readonly string[] | undefined;
  readonly fromInitial: boolean;
}

/** What an end claims: the instance in any state, one the machine no longer has included; never a new one. */
const ANY_STATE: ClaimStates = { allowedStates: undefined, fromInitial: false };

/**
 * The gate's first step: which instance a call acts on, that it is the caller's and in a state
 * the call's role allows, and what the call holds on it (a claim for a transition, the
 * transaction a transactional start creates its instance in). Refuses with a
 * {@link WorkflowDenial}; a store that fails throws a store failure (both become the call's
 * refusal in the gate). It answers the admission as a value; the gate shows it in the handler's
 * `@McpContext()`.
 */
@Injectable()
export class WorkflowAdmissions {
  private readonly logger = new Logger('McpGate');
  /** The claim states of each transition role the app declared, worked out on its first call: the same for every call. */
  private readonly claimStates = new Map<McpTransitionRole, ClaimStates>();

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    private readonly unknownStates: UnknownStateReporter,
    private readonly approvals: WorkflowApprovals,
    @Optional() @Inject(WORKFLOW_GATE_OBSERVER) private readonly observer: WorkflowGateObserver = SILENT_GATE_OBSERVER,
  ) {}

  /** Admits the call of a gated `role` or refuses it: nothing after this runs for a refused call. */
  async admit(call: WorkflowCall, role: McpGatedRole): Promise<WorkflowAdmission> {
    switch (role.kind) {
      case 'start':
        return this.admitStart(call, role);
      case 'transition':
        return this.admitTransition(call, this.resolve(call, role), role);
      default: {
        const { instance, snapshot } = await this.read(call, this.resolve(call, role));
        return { instance, snapshot, hold: { kind: 'none' } };
      }
    }
  }

  /**
   * The instance of a confirmed transition, read and refused as any call would be, not claimed: what a person is
   * asked about. A stateless connection, which can put a question to nobody, is refused CONFIRMATION_REQUIRED
   * where it has no instance at all (NO_SESSION): what the call needs is a connection that can ask.
   */
  async askable(call: WorkflowCall, role: McpGatedRole): Promise<ConfirmationSubject> {
    let instance: WorkflowInstanceRef;
    try {
      instance = this.resolve(call, role);
    } catch (error) {
      if (error instanceof WorkflowDenial && error.reason.code === 'NO_SESSION' && call.caller.kind === 'stateless') {
        throw deny({ code: 'CONFIRMATION_REQUIRED', machine: role.machine, state: null, why: messages.noWayToAsk() });
      }
      throw error;
    }
    return this.read(call, instance);
  }

  /** `snapshot` of `instance`, found to be the caller's, in a state the machine has; refused UNKNOWN_STATE (and reported) in one it does not have. */
  known(instance: WorkflowInstanceRef, snapshot: WorkflowSnapshot): WorkflowSnapshot {
    if (!this.machines.engine(instance.machine).knows(snapshot.state)) {
      this.unknownStates.report(instance.machine, snapshot.state, instance.storeKey);
      throw deny({ code: 'UNKNOWN_STATE', machine: instance.machine, state: snapshot.state });
    }
    return snapshot;
  }

  /** Mints a start tool's handle; makes sure the store is there (fail closed): opens the transaction it writes in, or reads the new handle (which must not exist). */
  private async admitStart(call: WorkflowCall, role: McpStartRole): Promise<WorkflowAdmission> {
    const handle = mintHandle();
    const storeKey = formatInstanceKey({ machine: role.machine, scope: 'handle', id: handle });
    const instance: WorkflowInstanceRef = { machine: role.machine, storeKey, scope: 'handle', handle };
    const initial = this.machines.engine(role.machine).initial(call.args);
    const starter = starterOf(call.context.authInfo, this.machines.machine(role.machine));
    const snapshot = this.known(instance, { ...initial, updatedAt: new Date().toISOString(), ...starter });
    let hold: WorkflowHold = { kind: 'none' };
    try {
      if (role.transactional) {
        hold = { kind: 'transaction', transaction: await this.store.beginTransaction() };
      } else if (await this.store.load(storeKey)) {
        throw new Error(messages.handleCollision(storeKey));
      }
    } catch (error) {
      throw storeFailure(error, handle);
    }
    return { instance, snapshot, hold };
  }

  /** Claims the instance of a transition tool and checks its state (where its event leads is decided with the piped arguments). */
  private async admitTransition(call: WorkflowCall, instance: WorkflowInstanceRef, role: McpTransitionRole): Promise<WorkflowAdmission> {
    const engine = this.machines.engine(instance.machine);
    const machine = this.machines.machine(instance.machine);
    const claim = this.claimRequest(call, instance, role, engine);
    // A decision reaches a waiting instance whoever owns it only by the app's authority, or an approval that says so.
    const everyone = role.decision !== undefined && this.approvals.reachesEveryInstance(call, role.decision);
    const request = everyone ? { ...claim, anyOwner: true } : claim;
    // The store claimed for anyone under an access function: the gate asks it.
    const judged = request.anyOwner === true && !everyone;
    const outcome = await this.observer.claim(call, () => this.store.acquire(request, role.transactional));
    if (judged && outcome.status !== 'claimed' && outcome.status !== 'unknown') {
      // A caller the access function would not let in learns nothing of the instance.
      const stored = await this.store.load(instance.storeKey);
      if (!stored || !mayAccess(authOf(call), machine, instance, stored)) throw this.unknownHandle(instance);
    }
    if (outcome.status !== 'claimed') {
      const { reason, found } = this.claimDenial(call, instance, role, outcome);
      throw deny(reason, found && { instance, snapshot: this.known(instance, found) });
    }
    const { lock } = outcome;
    const admission: WorkflowAdmission = { instance, snapshot: lock.snapshot, hold: { kind: 'lock', lock } };
    try {
      if (judged && !mayAccess(authOf(call), machine, instance, lock.snapshot)) throw this.unknownHandle(instance);
      // An end takes the instance in whatever state it is, one the machine no longer has included.
      if (role.ends) return admission;
      this.known(instance, lock.snapshot);
      // The store matched the states exactly, unless the engine had too many values to list.
      if (!role.states.some((state) => engine.matches(lock.snapshot.state, state))) {
        throw deny({ code: 'FORBIDDEN', machine: instance.machine, state: lock.snapshot.state }, admission);
      }
      return admission;
    } catch (error) {
      await lock.release().catch((failed: unknown) => this.logger.error(messages.releaseFailed(call.tool.name, failed)));
      throw error;
    }
  }

  /** Which instance the call acts on: its handle argument, or its connection's session instance. */
  private resolve(call: WorkflowCall, { machine }: McpGatedRole): WorkflowInstanceRef {
    const key = this.machines.machine(machine).stateHandleKey;
    if (key) {
      const handle = call.args[key];
      if (!isWellFormedHandle(handle)) {
        throw deny({ code: 'UNKNOWN_HANDLE', machine, key, handle });
      }
      return { machine, storeKey: formatInstanceKey({ machine, scope: 'handle', id: handle }), scope: 'handle', handle };
    }
    const storeKey = call.caller.sessionStoreKey(machine);
    if (!storeKey) {
      throw deny({ code: 'NO_SESSION', machine });
    }
    return { machine, storeKey, scope: 'session' };
  }

  /** Reads `instance` as a read is admitted, without claiming it: as read, and as stored (`undefined`: a session's instance not stored yet). */
  private async read(call: WorkflowCall, instance: WorkflowInstanceRef): Promise<ConfirmationSubject> {
    const stored = await this.store.load(instance.storeKey);
    // A session's instance exists once its first transition ran; until then it is the initial one.
    const read = stored ?? (instance.scope === 'handle' ? undefined : this.initialSnapshot(instance.machine));
    if (!read || !mayAccess(authOf(call), this.machines.machine(instance.machine), instance, read)) {
      throw this.unknownHandle(instance);
    }
    const snapshot = this.known(instance, read);
    const { role } = call.tool;
    const engine = this.machines.engine(instance.machine);
    if ((role.kind === 'bound' || role.kind === 'transition') && !role.states.some((state) => engine.matches(snapshot.state, state))) {
      throw deny({ code: 'FORBIDDEN', machine: instance.machine, state: snapshot.state }, { instance, snapshot });
    }
    return { instance, snapshot, stored };
  }

  /**
   * The claim of `instance` for a call of a transition: on the stored values its states match, with a
   * fresh lease token, for the caller as the machine's access rule sees it (its principal, its
   * team; anyone under an access function, which {@link admitTransition} asks after the claim); a
   * session's (or a principal's) instance not stored yet is created in the initial state when
   * that state is one of them, owned by the caller (the console's owner).
   */
  private claimRequest(
    call: WorkflowCall,
    instance: WorkflowInstanceRef,
    role: McpTransitionRole,
    engine: MachineEngine,
  ): WorkflowClaimRequest {
    const { allowedStates, fromInitial } = this.claimStatesOf(role, engine);
    const owner = instance.scope === 'session' || instance.scope === 'principal' ? call.principal : undefined;
    const createWith =
      instance.scope !== 'handle' && fromInitial
        ? { ...engine.initial(), updatedAt: new Date().toISOString(), ...(owner === undefined ? {} : { owner }) }
        : undefined;
    // A deadline or an outside event acts for the owner (and team) of the instance it moves: the store's own rule lets it in.
    const actsFor = call.caller.deadline ?? call.caller.outside;
    const access = actsFor
      ? { owner: actsFor.owner, team: actsFor.team }
      : claimAccessOf(call.context.authInfo, this.machines.machine(instance.machine), instance);
    return { key: instance.storeKey, allowedStates, token: randomUUID(), leaseMs: this.options.leaseMs, ...access, createWith };
  }

  /** The claim states of `role`; an end's role, made for each end, is not kept. */
  private claimStatesOf(role: McpTransitionRole, engine: MachineEngine): ClaimStates {
    if (role.ends) return ANY_STATE;
    let states = this.claimStates.get(role);
    if (!states) {
      const initial = engine.initial().state;
      states = {
        allowedStates: engine.valuesMatching(role.states),
        fromInitial: role.states.some((state) => engine.matches(initial, state)),
      };
      this.claimStates.set(role, states);
    }
    return states;
  }

  /**
   * Why a claim the store did not grant refuses the call: an unknown handle, or BUSY or FORBIDDEN in
   * the state the store found (`found`; a session's instance not stored yet is in its initial state).
   * A decision that finds the instance out of its waiting state is STALE_REQUEST: nothing waits.
   */
  private claimDenial(
    call: WorkflowCall,
    instance: WorkflowInstanceRef,
    role: McpTransitionRole,
    outcome: Exclude<FsmLockOutcome, { status: 'claimed' }>,
  ): { reason: WorkflowDenialReason; found?: WorkflowSnapshot } {
    const { machine } = instance;
    if (outcome.status === 'unknown' && instance.scope === 'handle') {
      return { reason: { code: 'UNKNOWN_HANDLE', machine, key: this.handleKey(machine), handle: instance.handle } };
    }
    const found =
      outcome.status === 'unknown' ? this.initialSnapshot(machine) : { state: outcome.state, updatedAt: new Date().toISOString() };
    if (outcome.status === 'forbidden' && role.decision) {
      return { reason: this.approvals.nothingWaits(call, machine, found.state), found };
    }
    return { reason: { code: outcome.status === 'busy' ? 'BUSY' : 'FORBIDDEN', machine, state: found.state }, found };
  }

  private initialSnapshot(machine: string): WorkflowSnapshot {
    return { ...this.machines.engine(machine).initial(), updatedAt: new Date().toISOString() };
  }

  /** The denial of an instance the caller may not see: as if there were none. */
  private unknownHandle(instance: WorkflowInstanceRef): WorkflowDenial {
    return deny({ code: 'UNKNOWN_HANDLE', machine: instance.machine, key: this.handleKey(instance.machine), handle: instance.handle });
  }

  private handleKey(machine: string): string {
    return this.machines.machine(machine).stateHandleKey ?? '';
  }
}
