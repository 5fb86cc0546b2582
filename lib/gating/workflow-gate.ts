import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor, Optional } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { from, isObservable, lastValueFrom, type Observable } from 'rxjs';
import type { McpToolBinding } from '../registry/mcp-tool-definition.interface.js';
import type { MachineEngine, MachineState } from '../machines/machine-engine.interface.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { toStateValue } from '../machines/state-value.js';
import type { WorkflowClaimRequest } from '../stores/atomic-fsm-state-store.interface.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { isOwnedBy } from '../stores/workflow-owner.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import { WorkflowCall, recordOf } from './workflow-call.js';
import type { WorkflowInstanceRef } from './workflow-call-outcome.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';
import { SILENT_GATE_OBSERVER, WORKFLOW_GATE_OBSERVER, type WorkflowGateObserver } from './workflow-gate-observer.interface.js';
import { isWellFormedHandle, mintHandle } from './workflow-handle.js';
import { WorkflowRefusal } from './workflow-refusal.error.js';
import { WorkflowRefusals } from './workflow-refusals.js';
import { WorkflowTransitionBus } from '../relays/workflow-transition.bus.js';
import * as messages from './gating.messages.js';
import type { FsmLockOutcome } from '../stores/locks/fsm-instance-lock.interface.js';
import { buildCallResult } from '../results/call-result.builder.js';
import { isToolErrorResult } from '../results/tool-output.js';
import { isInputRequired, type McpInputRequired } from '../results/input-required.result.js';
import { UnknownStateReporter } from './unknown-state.reporter.js';
import { WorkflowConfirmations } from './confirmation.step.js';

/** What a binding claims: the stored values it is bound to (`undefined`: too many to list), and whether the initial state is one. */
interface ClaimStates {
  allowedStates: readonly string[] | undefined;
  fromInitial: boolean;
}

/**
 * The gate: owns every workflow call from start to end, reading top to bottom: resolve →
 * check it is the caller's → claim → transition → handler → commit or release → publish.
 * Where it runs among guards, interceptors and pipes: see docs/pipeline.md#where-the-gate-runs;
 * subclassing it: see docs/extending.md#subclassing-the-gate.
 */
@Injectable()
export class WorkflowGate implements NestInterceptor {
  protected readonly logger = new Logger('McpGate');
  private readonly claimStatesByBinding = new WeakMap<McpToolBinding, ClaimStates>();
  /** Told of each call's claim, commit and end (telemetry); a property, so subclasses' constructors stay as they are. */
  @Optional()
  @Inject(WORKFLOW_GATE_OBSERVER)
  protected readonly observer: WorkflowGateObserver = SILENT_GATE_OBSERVER;

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) protected readonly options: WorkflowGateOptions,
    protected readonly store: FsmStoreAdapter,
    protected readonly machines: McpMachineRegistry,
    protected readonly refusals: WorkflowRefusals,
    protected readonly bus: WorkflowTransitionBus,
    protected readonly unknownStates: UnknownStateReporter,
    protected readonly confirmations: WorkflowConfirmations,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = WorkflowCall.from(context);
    if (!call?.tool.gated) {
      return next.handle();
    }
    // The pipes run after the interceptors: the method's stand-in decides the transition with their output.
    return from(this.run(call, () => lastValueFrom(next.handle(), { defaultValue: undefined })));
  }

  /**
   * Runs a gated call whose handler is `handler` (what the method returns: a value, a promise
   * or an observable) and answers the handler's value. `input` is what the machine's guards and
   * actions see as `event.input`: the arguments as the handler gets them, after the pipes.
   */
  async handle(call: WorkflowCall, handler: () => unknown, input: Record<string, unknown> = call.args): Promise<unknown> {
    return this.run(
      call,
      async () => {
        const value = await handler();
        return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
      },
      input,
    );
  }

  /**
   * Decides where the admitted call's transition leads with `input` as `event.input` (the
   * arguments after the pipes), or refuses it; called by the method's stand-in when the gate
   * runs among interceptors, before the pipes.
   */
  async decideWith(call: WorkflowCall, input: Record<string, unknown>): Promise<void> {
    await this.failClosed(call, false, async () => this.decide(call, input));
  }

  /**
   * One gated call, top to bottom. Whatever happens, the claim is committed or let go; a call
   * abandoned at shutdown (see {@link WorkflowCall.unlessAbandoned}) is never committed.
   */
  protected async run(call: WorkflowCall, handler: () => Promise<unknown>, input?: Record<string, unknown>): Promise<unknown> {
    let running: Promise<unknown> | undefined;
    let answer: unknown;
    try {
      const question = call.tool.confirmation && (await this.confirm(call, input ?? call.args));
      if (question) {
        return (answer = question);
      }
      await this.failClosed(call, false, () => this.admit(call));
      if (input) {
        await this.decideWith(call, input);
      }
      const result = await call.unlessAbandoned(() => (running = handler()));
      running = undefined;
      if (!isToolErrorResult(result) && !isInputRequired(result)) {
        recordOf(call).keepResult(result, buildCallResult(call, result));
        call.beginCommit();
        await this.failClosed(call, true, () => this.complete(call));
      }
      return (answer = result);
    } finally {
      this.observer.settled(call, answer);
      if (running && call.abandoned && call.context.manager) {
        // The handler still writes through the call's transaction: it rolls back once the handler
        // is done, never under it (on SQLite's one connection its later writes would commit alone).
        const settle = () => this.settle(call);
        void running.then(settle, settle);
      } else {
        await this.settle(call);
      }
    }
  }

  /**
   * Gets the person's yes for a confirmed transition (`@McpConfirm`) before anything is
   * claimed: the instance is read and refused as any call would be (unknown, someone else's,
   * out of state: nobody is asked), then {@link WorkflowConfirmations.ask} asks. Answers the
   * question a 2026-07-28 call returns instead of running, or nothing when the call goes on.
   */
  protected async confirm(call: WorkflowCall, input: Record<string, unknown>): Promise<McpInputRequired | undefined> {
    const confirmation = call.tool.confirmation;
    if (!confirmation) {
      return undefined;
    }
    let stored: WorkflowSnapshot | undefined;
    await this.failClosed(call, false, async () => {
      stored = await this.readInstance(
        call,
        this.confirmations.resolveAskable(call, () => this.resolve(call)),
      );
    });
    try {
      return await this.confirmations.ask(call, confirmation, input, stored);
    } catch (error) {
      if (error instanceof WorkflowRefusal) {
        recordOf(call).refusal = error;
      }
      throw error;
    }
  }

  /** Admits the call or refuses it: nothing after this runs for a refused call. */
  protected async admit(call: WorkflowCall): Promise<void> {
    if (call.tool.start) {
      return this.admitStart(call);
    }
    const instance = this.resolve(call);
    if (call.tool.binding?.transition) {
      return this.admitTransition(call, instance, call.tool.binding);
    }
    return this.admitRead(call, instance);
  }

  /**
   * Mints the handle of a start tool (its transition is decided with the piped arguments, in
   * {@link WorkflowGate.decide}); makes sure the store is there (fail closed): in transactional mode
   * by opening the transaction it writes in, otherwise by reading the new handle (which must
   * not exist).
   */
  protected async admitStart(call: WorkflowCall): Promise<void> {
    const start = call.tool.start!;
    const engine = this.machines.engine(start.machine);
    const handle = mintHandle();
    const instance: WorkflowInstanceRef = {
      machine: start.machine,
      storeKey: formatInstanceKey({ machine: start.machine, scope: 'handle', id: handle }),
      scope: 'handle',
      handle,
    };
    const record = recordOf(call);
    this.admitted(call, instance, { ...engine.initial(call.args), updatedAt: new Date().toISOString(), owner: call.principal });
    if (start.transactional) {
      record.transaction = await this.store.beginTransaction();
      call.context.manager = record.transaction.manager;
    } else if (await this.store.load(instance.storeKey)) {
      throw new Error(messages.handleCollision(instance.storeKey));
    }
  }

  /** Claims the instance of a transition tool and checks its state (where its event leads is decided with the piped arguments). */
  protected async admitTransition(call: WorkflowCall, instance: WorkflowInstanceRef, binding: McpToolBinding): Promise<void> {
    const engine = this.machines.engine(instance.machine);
    const request = this.claimRequest(call, instance, binding, engine);
    const outcome = await this.observer.claim(call, () => this.store.acquire(request, binding.transactional));
    if (outcome.status !== 'claimed') {
      throw this.refuseOutcome(call, instance, outcome);
    }
    const record = recordOf(call);
    record.lock = outcome.lock;
    call.context.manager = outcome.lock.manager;
    const { snapshot } = outcome.lock;
    this.admitted(call, instance, snapshot);
    // The store matched the states exactly, unless the engine had too many values to list.
    if (!binding.states.some((state) => engine.matches(snapshot.state, state))) {
      throw this.refusals.forbidden(call, instance.machine, snapshot.state);
    }
    if (call.tool.confirmation) {
      this.confirmations.checkClaimed(call, snapshot);
    }
  }

  /** Computes where the admitted call leads (its start, or its bound transition) with `input` as `event.input`. */
  protected decide(call: WorkflowCall, input: Record<string, unknown>): void {
    const record = recordOf(call);
    const { start, binding } = call.tool;
    if (start) {
      const engine = this.machines.engine(start.machine);
      const initial = engine.initial(input);
      this.admitted(call, record.instance!, { ...initial, updatedAt: record.admitted!.updatedAt, owner: call.principal });
      record.next = start.transition ? this.evaluate(call, engine, initial, start.transition, input) : initial;
    } else if (binding?.transition) {
      const engine = this.machines.engine(binding.machine);
      record.next = this.evaluate(call, engine, record.admitted!, binding.transition, input);
    }
  }

  /** Checks the instance of a read (a bound tool without transition, or a workflow tool that takes the handle). */
  protected async admitRead(call: WorkflowCall, instance: WorkflowInstanceRef): Promise<void> {
    await this.readInstance(call, instance);
  }

  /** Admits `instance` as a read does, without claiming it; answers it as stored (`undefined`: a session's instance not stored yet). */
  private async readInstance(call: WorkflowCall, instance: WorkflowInstanceRef): Promise<WorkflowSnapshot | undefined> {
    const engine = this.machines.engine(instance.machine);
    const stored = await this.store.load(instance.storeKey);
    // A session's instance exists once its first transition ran; until then it is the initial one.
    const snapshot = stored ?? (instance.scope === 'handle' ? undefined : { ...engine.initial(), updatedAt: new Date().toISOString() });
    if (!snapshot || !isOwnedBy(snapshot.owner, call.principal)) {
      throw this.refusals.unknownHandle(call, instance.machine, this.handleKey(instance.machine), instance.handle);
    }
    this.admitted(call, instance, snapshot);
    const binding = call.tool.binding;
    if (binding && !binding.states.some((state) => engine.matches(snapshot.state, state))) {
      throw this.refusals.forbidden(call, instance.machine, snapshot.state);
    }
    return stored;
  }

  /** Which instance the call acts on: its handle argument, or its connection's session instance. */
  protected resolve(call: WorkflowCall): WorkflowInstanceRef {
    const machine = call.tool.binding?.machine ?? call.tool.reads!;
    const key = this.machines.machine(machine).stateHandleKey;
    if (key) {
      const handle = call.args[key];
      if (!isWellFormedHandle(handle)) {
        throw this.refusals.unknownHandle(call, machine, key, handle);
      }
      return { machine, storeKey: formatInstanceKey({ machine, scope: 'handle', id: handle }), scope: 'handle', handle };
    }
    const storeKey = call.caller.sessionStoreKey(machine);
    if (!storeKey) {
      throw this.refusals.noSession(call, machine);
    }
    return { machine, storeKey, scope: 'session' };
  }

  /**
   * Sends the bound event to the instance with the call's arguments as `event.input`;
   * refuses when no transition is enabled (a guard said no, or the state has none for it).
   */
  protected evaluate(
    call: WorkflowCall,
    engine: MachineEngine,
    from: MachineState,
    event: string,
    input: Record<string, unknown> = call.args,
  ): MachineState {
    const step = engine.transition({ state: from.state, context: from.context }, event, input);
    switch (step.status) {
      case 'moved':
        return step.next;
      case 'guarded':
        throw this.refusals.guardRejected(call, engine.machineId, from.state, event, step.guards);
      case 'ignored':
        throw this.refusals.forbidden(call, engine.machineId, from.state);
    }
  }

  /** Stores what the successful call changed (under its claim), then publishes it. */
  protected async complete(call: WorkflowCall): Promise<void> {
    const record = recordOf(call);
    const instance = record.instance!;
    const next = record.next;
    if (!next) {
      return;
    }
    const from = call.tool.start ? null : record.admitted!.state;
    const event = (call.tool.start ?? call.tool.binding)!.transition ?? null;
    const updatedAt = new Date().toISOString();
    const snapshot: WorkflowSnapshot = { ...next, updatedAt, owner: record.admitted!.owner };
    const transition = this.record(call, from, next.state, event, updatedAt);
    await this.observer.commit(call, async () => {
      if (call.tool.start) {
        return this.create(call, snapshot, transition);
      }
      const lock = record.lock!;
      record.lock = undefined;
      if (!(await lock.commit({ snapshot, record: transition }))) {
        throw this.refusals.leaseExpired(call, instance.machine, lock.snapshot.state, this.options.leaseMs);
      }
    });
    record.storedState = next.state;
    this.bus.publish({ machine: instance.machine, storeKey: instance.storeKey, state: next.state, origin: call.caller });
  }

  /**
   * Records that the call's handler ended (deleted) an instance, and tells every session
   * that follows it; the call's own instance then leaves the call ended (`null`), and its
   * session is told in-band, with the call's result.
   */
  ended(call: WorkflowCall, instance: Pick<WorkflowInstanceRef, 'machine' | 'storeKey'>): void {
    const record = recordOf(call);
    const own = record.instance?.storeKey === instance.storeKey;
    if (own) {
      record.storedState = null;
    }
    this.bus.publish({ machine: instance.machine, storeKey: instance.storeKey, state: null, origin: own ? call.caller : undefined });
  }

  /**
   * Records, for a call that failed before the gate admitted it (a guard, a pipe or an
   * interceptor of the app threw), the refusal a hidden tool answers instead: FORBIDDEN with
   * the allowed actions, when the call's instance is the caller's and its state does not allow
   * the tool. An unknown instance, another principal's, or one the store cannot read tells
   * nothing: the app's own error stands. Answers the refusal, or `undefined`.
   */
  async refuseHidden(call: WorkflowCall): Promise<WorkflowRefusal | undefined> {
    const binding = call.tool.binding;
    const record = recordOf(call);
    if (!binding || record.instance || record.refusal) {
      return undefined;
    }
    const { machine } = binding;
    const engine = this.machines.engine(machine);
    const handleKey = this.machines.machine(machine).stateHandleKey;
    const handle = handleKey ? call.args[handleKey] : undefined;
    const storeKey = handleKey
      ? isWellFormedHandle(handle) && formatInstanceKey({ machine, scope: 'handle', id: handle })
      : call.caller.sessionStoreKey(machine);
    if (!storeKey) {
      return undefined;
    }
    const stored = await this.store.load(storeKey).catch(() => undefined);
    const state = stored?.state ?? (handleKey ? undefined : engine.initial().state);
    if (
      state === undefined ||
      (stored && !isOwnedBy(stored.owner, call.principal)) ||
      !engine.knows(state) ||
      binding.states.some((bound) => engine.matches(state, bound))
    ) {
      return undefined;
    }
    record.refusal = this.refusals.forbidden(call, machine, state);
    this.observer.settled(call);
    return record.refusal;
  }

  /** Lets go of whatever the call still holds (nothing after a commit). */
  protected async settle(call: WorkflowCall): Promise<void> {
    const record = recordOf(call);
    const { lock, transaction } = record;
    record.lock = record.transaction = undefined;
    try {
      await lock?.release();
      await transaction?.rollback();
    } catch (error) {
      this.logger.error(messages.releaseFailed(call.tool.name, error));
    }
  }

  private async create(call: WorkflowCall, snapshot: WorkflowSnapshot, transition: WorkflowTransitionRecord): Promise<void> {
    const record = recordOf(call);
    const { storeKey } = record.instance!;
    if (record.transaction) {
      const transaction = record.transaction;
      record.transaction = undefined;
      await transaction.commit(storeKey, { snapshot, record: transition }, { insert: true }).catch(async (error: unknown) => {
        await transaction.rollback();
        throw error;
      });
    } else {
      await this.store.create(storeKey, snapshot, transition);
    }
  }

  private claimRequest(
    call: WorkflowCall,
    instance: WorkflowInstanceRef,
    binding: McpToolBinding,
    engine: MachineEngine,
  ): WorkflowClaimRequest {
    const { allowedStates, fromInitial } = this.claimStates(binding, engine);
    // A session's (or a principal's) instance is its caller's: it records who that is (the console's owner).
    const owner = instance.scope === 'session' || instance.scope === 'principal' ? call.principal : undefined;
    const createWith =
      instance.scope !== 'handle' && fromInitial
        ? { ...engine.initial(), updatedAt: new Date().toISOString(), ...(owner === undefined ? {} : { owner }) }
        : undefined;
    return {
      key: instance.storeKey,
      allowedStates,
      token: randomUUID(),
      leaseMs: this.options.leaseMs,
      owner: call.principal,
      createWith,
    };
  }

  /** The stored values a binding claims, and whether the machine's initial state is among them; the same for every call. */
  private claimStates(binding: McpToolBinding, engine: MachineEngine): ClaimStates {
    let states = this.claimStatesByBinding.get(binding);
    if (!states) {
      const initial = engine.initial().state;
      states = {
        allowedStates: engine.valuesMatching(binding.states),
        fromInitial: binding.states.some((state) => engine.matches(initial, state)),
      };
      this.claimStatesByBinding.set(binding, states);
    }
    return states;
  }

  /** Records the instance the call acts on, once it is known to be the caller's and in a known state. */
  private admitted(call: WorkflowCall, instance: WorkflowInstanceRef, snapshot: WorkflowSnapshot): void {
    if (!this.machines.engine(instance.machine).knows(snapshot.state)) {
      this.unknownStates.report(instance.machine, snapshot.state, instance.storeKey);
      throw this.refusals.unknownState(call, instance.machine, snapshot.state);
    }
    const record = recordOf(call);
    record.instance = instance;
    record.admitted = snapshot;
    Object.assign(call.context, {
      machine: instance.machine,
      handle: instance.handle,
      state: toStateValue(snapshot.state),
      workflowContext: snapshot.context,
    });
  }

  private refuseOutcome(
    call: WorkflowCall,
    instance: WorkflowInstanceRef,
    outcome: Exclude<FsmLockOutcome, { status: 'claimed' }>,
  ): WorkflowRefusal {
    const { machine } = instance;
    switch (outcome.status) {
      case 'unknown':
        if (instance.scope === 'handle') {
          return this.refusals.unknownHandle(call, machine, this.handleKey(machine), instance.handle);
        }
        this.admitted(call, instance, { ...this.machines.engine(machine).initial(), updatedAt: new Date().toISOString() });
        return this.refusals.forbidden(call, machine, recordOf(call).admitted!.state);
      case 'forbidden':
      case 'busy':
        this.admitted(call, instance, { state: outcome.state, updatedAt: new Date().toISOString() });
        return outcome.status === 'busy'
          ? this.refusals.busy(call, machine, outcome.state)
          : this.refusals.forbidden(call, machine, outcome.state);
    }
  }

  /** Runs a step of the gate; a store failure becomes STATE_UNAVAILABLE (detail in the log, not for the model). */
  private async failClosed(call: WorkflowCall, handlerRan: boolean, step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      const record = recordOf(call);
      if (error instanceof WorkflowRefusal) {
        record.refusal = error;
        throw error;
      }
      const machine = record.instance?.machine ?? call.tool.binding?.machine ?? call.tool.start?.machine ?? call.tool.reads!;
      this.logger.error(messages.storeFailed(call.tool.name, machine, error), error instanceof Error ? error.stack : undefined);
      record.refusal = this.refusals.stateUnavailable(call, machine, handlerRan);
      throw record.refusal;
    }
  }

  private handleKey(machine: string): string {
    return this.machines.machine(machine).stateHandleKey ?? '';
  }

  private record(call: WorkflowCall, from: string | null, to: string, event: string | null, at: string): WorkflowTransitionRecord {
    const { machine, storeKey } = recordOf(call).instance!;
    const principal = call.principal ?? call.context.sessionId ?? null;
    return { machine, key: storeKey, from, to, event, tool: call.tool.name, principal, at };
  }
}
