import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor, Optional } from '@nestjs/common';
import { from, isObservable, lastValueFrom, type Observable } from 'rxjs';
import type { MachineEngine, MachineState } from '../machines/machine-engine.interface.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { toStateValue } from '../machines/state-value.js';
import type { McpGatedRole, McpStartRole, McpToolConfirmation, McpTransitionRole } from '../registry/mcp-handler-role.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { isOwnedBy } from '../stores/workflow-owner.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { WorkflowTransitionBus } from '../relays/workflow-transition.bus.js';
import { buildCallResult } from '../results/call-result.builder.js';
import { isInputRequired, type McpInputRequired } from '../results/input-required.result.js';
import { isToolErrorResult } from '../results/tool-output.js';
import { claimDenial, claimRequest, transitionRecord } from './claim-request.js';
import { WorkflowConfirmations, type ConfirmationSubject } from './confirmation.step.js';
import { GatedCallProgress, NOTHING_HELD, ungatedOutcome, type GatedCallEnd } from './gated-call.progress.js';
import * as messages from './gating.messages.js';
import { refusedBeforeGate } from './hidden-tool.refusal.js';
import { UnknownStateReporter } from './unknown-state.reporter.js';
import { WorkflowCall, type WorkflowRequest } from './workflow-call.js';
import type {
  WorkflowAdmission,
  WorkflowCallOutcome,
  WorkflowDecision,
  WorkflowHold,
  WorkflowInstanceRef,
  WorkflowStored,
} from './workflow-call-outcome.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';
import { SILENT_GATE_OBSERVER, WORKFLOW_GATE_OBSERVER, type WorkflowGateObserver } from './workflow-gate-observer.interface.js';
import { isWellFormedHandle, mintHandle } from './workflow-handle.js';
import { deny, WorkflowDenial } from './workflow-denial.js';
import { WorkflowRefusal } from './workflow-refusal.error.js';
import { WorkflowRefusals } from './workflow-refusals.js';

/**
 * The gate: runs every call, from its request to its outcome, as steps that each answer a
 * value: admit (resolve, check it is the caller's, claim) → decide the transition → run the
 * handler → commit or release → publish. Where it runs among guards, interceptors and pipes:
 * see docs/pipeline.md#where-the-gate-runs; subclassing it: see docs/extending.md#subclassing-the-gate.
 */
@Injectable()
export class WorkflowGate implements NestInterceptor {
  protected readonly logger = new Logger('McpGate');
  /** Told of each call's claim, commit and end (telemetry); a property, so subclasses' constructors stay as they are. */
  @Optional()
  @Inject(WORKFLOW_GATE_OBSERVER)
  protected readonly observer: WorkflowGateObserver = SILENT_GATE_OBSERVER;
  /** The gate's progress through each call it entered, until the call's pipeline returned. */
  private readonly progress = new WeakMap<WorkflowCall, GatedCallProgress>();

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) protected readonly options: WorkflowGateOptions,
    protected readonly store: FsmStoreAdapter,
    protected readonly machines: McpMachineRegistry,
    protected readonly refusals: WorkflowRefusals,
    protected readonly bus: WorkflowTransitionBus,
    protected readonly unknownStates: UnknownStateReporter,
    protected readonly confirmations: WorkflowConfirmations,
  ) {}

  /**
   * Runs one call (every tool call, prompt get and resource read) and answers how it ended. Its
   * pipeline enters the gate where it belongs ({@link WorkflowGate.intercept}, {@link WorkflowGate.handle});
   * when the request's cutoff aborts before the call began to commit, the outcome is its reason, at once.
   */
  async run(request: WorkflowRequest): Promise<WorkflowCallOutcome> {
    const call = new WorkflowCall(request.target, request.caller, request.args, request.context, request.cutoff, request.task);
    try {
      const value = await call.unlessAbandoned(() => call.tool.invoke([...request.transport, call]));
      return this.progress.get(call)?.answered(value) ?? ungatedOutcome(call, value);
    } catch (error) {
      const parts = { machines: this.machines, store: this.store, refusals: this.refusals, observer: this.observer };
      return this.progress.get(call)?.failed(error) ?? refusedBeforeGate(call, error, parts);
    }
  }

  /** The gate as the method's first interceptor: it admits the call here; the method's stand-in decides after the pipes. */
  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = WorkflowCall.from(context);
    if (!call || call.tool.role.kind === 'ungated') {
      return next.handle();
    }
    return from(this.enter(call, () => lastValueFrom(next.handle(), { defaultValue: undefined }), undefined));
  }

  /**
   * The gate around a handler (given the call's admission; it answers a value, a promise or an observable), answering
   * its value: `input` is what the machine's guards and actions see as `event.input`, the arguments after the pipes.
   */
  handle(
    call: WorkflowCall,
    handler: (admission: WorkflowAdmission) => unknown,
    input: Record<string, unknown> = call.args,
  ): Promise<unknown> {
    const body = async (admission: WorkflowAdmission) => {
      const value = await handler(admission);
      return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
    };
    return this.enter(call, body, input);
  }

  /** Decides the admitted call's transition with the arguments after the pipes: the method's stand-in calls it when the gate runs among interceptors. */
  async decideWith(call: WorkflowCall, input: Record<string, unknown>): Promise<void> {
    await this.progress.get(call)?.decideWith(input);
  }

  /** Records that the call's handler ended (deleted) an instance, and tells every session that follows it (the caller's in-band, with the result). */
  ended(call: WorkflowCall, instance: Pick<WorkflowInstanceRef, 'machine' | 'storeKey'>): void {
    const own = this.progress.get(call)?.ended(instance.storeKey) ?? false;
    this.bus.publish({ machine: instance.machine, storeKey: instance.storeKey, state: null, origin: own ? call.caller : undefined });
  }

  /**
   * One gated call, top to bottom: the claim is committed or let go whatever happens; a call abandoned at shutdown (see
   * {@link WorkflowCall.unlessAbandoned}) is never committed. With `input` (the gate around the method) the gate's answer
   * is the call's, and it keeps the result it built; among interceptors, the app's outer ones may change the value.
   */
  private async enter(
    call: WorkflowCall,
    body: (admission: WorkflowAdmission) => Promise<unknown>,
    input: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    const role = call.tool.role;
    // The method's stand-in decides among the app's interceptors: they see the refusal, as the app's filters do.
    const decider = (admission: WorkflowAdmission, piped: Record<string, unknown>) =>
      this.step(call, false, async () => this.decide(call, admission, piped)).catch((error: unknown) => {
        throw this.refusalOf(call, error);
      });
    const progress = new GatedCallProgress(call, decider);
    this.progress.set(call, progress);
    let running: Promise<unknown> | undefined;
    let subject: ConfirmationSubject | undefined;
    let admission: WorkflowAdmission | undefined;
    let committing = false;
    let end: GatedCallEnd = {};
    try {
      const asked =
        role.kind === 'transition' && role.confirmation ? await this.confirm(call, role.confirmation, input ?? call.args) : undefined;
      if (isInputRequired(asked)) {
        end = { asking: true };
        return asked;
      }
      subject = asked;
      admission = await this.step(call, false, () => this.admit(call));
      progress.admitted(admission);
      if (subject) {
        this.confirmations.checkClaimed(subject, admission);
      }
      if (input) {
        await progress.decideWith(input);
      }
      const claimed = admission;
      const value = await call.unlessAbandoned(() => (running = body(claimed)));
      running = undefined;
      if (isToolErrorResult(value) || isInputRequired(value)) {
        end = { asking: isInputRequired(value) };
        return value;
      }
      const result = buildCallResult(call, value, role.kind === 'start' ? { [role.handleKey]: claimed.instance.handle } : {});
      const decision = await progress.decided();
      call.beginCommit();
      // From here the claim is the commit's: it stores the change or lets go of it itself.
      committing = true;
      const stored = decision && (await this.step(call, true, () => this.complete(call, claimed, decision), claimed.instance));
      end = { stored, result: input ? result : undefined };
      return value;
    } catch (error) {
      const thrown = this.refusalOf(call, error);
      end = {
        refusal: thrown instanceof WorkflowRefusal ? thrown : undefined,
        seen: error instanceof WorkflowDenial ? error.seen : undefined,
      };
      throw thrown;
    } finally {
      this.observer.settled(call, progress.settle(end.seen ?? admission ?? subject, end));
      const hold = admission && !committing ? admission.hold : NOTHING_HELD;
      if (running && call.abandoned && call.context.manager) {
        // The handler still writes through the call's transaction: it rolls back once the handler
        // is done, never under it (on SQLite's one connection its later writes would commit alone).
        const release = () => this.release(call, hold);
        void running.then(release, release);
      } else {
        await this.release(call, hold);
      }
    }
  }

  /**
   * Gets the person's yes for a confirmed transition (`@McpConfirm`) before anything is claimed: the instance is read and
   * refused as any call would be, then {@link WorkflowConfirmations.ask} asks. Answers the question a 2026-07-28 call
   * returns instead of running, or the instance the person said yes about.
   */
  protected async confirm(
    call: WorkflowCall,
    confirmation: McpToolConfirmation,
    input: Record<string, unknown>,
  ): Promise<McpInputRequired | ConfirmationSubject> {
    const subject = await this.step(call, false, async () => {
      const instance = this.confirmations.resolveAskable(call, () => this.resolve(call));
      return { instance, ...(await this.readInstance(call, instance)) };
    });
    return (await this.confirmations.ask(call, confirmation, input, subject)) ?? subject;
  }

  /** Admits the call or refuses it: nothing after this runs for a refused call. */
  protected async admit(call: WorkflowCall): Promise<WorkflowAdmission> {
    const role = this.roleOf(call);
    switch (role.kind) {
      case 'start':
        return this.admitStart(call, role);
      case 'transition':
        return this.admitTransition(call, this.resolve(call), role);
      default:
        return this.admitRead(call, this.resolve(call));
    }
  }

  /** Mints a start tool's handle; makes sure the store is there (fail closed): opens the transaction it writes in, or reads the new handle (which must not exist). */
  protected async admitStart(call: WorkflowCall, role: McpStartRole): Promise<WorkflowAdmission> {
    const handle = mintHandle();
    const storeKey = formatInstanceKey({ machine: role.machine, scope: 'handle', id: handle });
    const instance: WorkflowInstanceRef = { machine: role.machine, storeKey, scope: 'handle', handle };
    const initial = this.machines.engine(role.machine).initial(call.args);
    const snapshot = this.found(call, instance, { ...initial, updatedAt: new Date().toISOString(), owner: call.principal });
    return this.step(
      call,
      false,
      async () => {
        if (role.transactional) {
          const transaction = await this.store.beginTransaction();
          call.context.manager = transaction.manager;
          return { instance, snapshot, hold: { kind: 'transaction', transaction } };
        }
        if (await this.store.load(storeKey)) {
          throw new Error(messages.handleCollision(storeKey));
        }
        return { instance, snapshot, hold: { kind: 'none' } };
      },
      instance,
    );
  }

  /** Claims the instance of a transition tool and checks its state (where its event leads is decided with the piped arguments). */
  protected async admitTransition(call: WorkflowCall, instance: WorkflowInstanceRef, role: McpTransitionRole): Promise<WorkflowAdmission> {
    const engine = this.machines.engine(instance.machine);
    const request = claimRequest(call, instance, role, engine, this.options.leaseMs);
    const outcome = await this.observer.claim(call, () => this.store.acquire(request, role.transactional));
    if (outcome.status !== 'claimed') {
      const { reason, found } = claimDenial(instance, outcome, this.handleKey(instance.machine), () =>
        this.initialSnapshot(instance.machine),
      );
      throw deny(reason, found && { instance, snapshot: this.found(call, instance, found) });
    }
    const { lock } = outcome;
    const admission: WorkflowAdmission = { instance, snapshot: lock.snapshot, hold: { kind: 'lock', lock } };
    try {
      call.context.manager = lock.manager;
      this.found(call, instance, lock.snapshot);
      // The store matched the states exactly, unless the engine had too many values to list.
      if (!role.states.some((state) => engine.matches(lock.snapshot.state, state))) {
        throw deny({ code: 'FORBIDDEN', machine: instance.machine, state: lock.snapshot.state }, admission);
      }
      return admission;
    } catch (error) {
      await this.release(call, admission.hold);
      throw error;
    }
  }

  /** Checks the instance of a read (a bound tool without transition, or a workflow tool that takes the handle). */
  protected async admitRead(call: WorkflowCall, instance: WorkflowInstanceRef): Promise<WorkflowAdmission> {
    const { snapshot } = await this.readInstance(call, instance);
    return { instance, snapshot, hold: { kind: 'none' } };
  }

  /** Computes where the admitted call leads (its start, or its bound transition) with `input` as `event.input`; nothing for a read. */
  protected decide(call: WorkflowCall, admission: WorkflowAdmission, input: Record<string, unknown>): WorkflowDecision | undefined {
    const role = this.roleOf(call);
    const engine = this.machines.engine(admission.instance.machine);
    switch (role.kind) {
      case 'start': {
        const initial = { ...engine.initial(input), updatedAt: admission.snapshot.updatedAt, owner: call.principal };
        const from = this.found(call, admission.instance, initial);
        return { from, next: role.event ? this.evaluate(call, engine, from, role.event, input) : from };
      }
      case 'transition':
        return { from: admission.snapshot, next: this.evaluate(call, engine, admission.snapshot, role.event, input) };
      default:
        return undefined;
    }
  }

  /** Which instance the call acts on: its handle argument, or its connection's session instance. */
  protected resolve(call: WorkflowCall): WorkflowInstanceRef {
    const { machine } = this.roleOf(call);
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

  /** Sends the bound event to the instance with `input` as `event.input`; refuses when no transition is enabled (a guard said no, or the state has none). */
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
        throw deny({ code: 'GUARD_REJECTED', machine: engine.machineId, state: from.state, event, guards: step.guards });
      case 'ignored':
        throw deny({ code: 'FORBIDDEN', machine: engine.machineId, state: from.state });
    }
  }

  /** Stores what the successful call changed (under its claim, or as a new instance), then publishes it; answers what it stored. */
  protected async complete(call: WorkflowCall, admission: WorkflowAdmission, decision: WorkflowDecision): Promise<WorkflowStored> {
    const { instance, hold } = admission;
    const { from, next } = decision;
    const role = this.roleOf(call);
    const at = new Date().toISOString();
    const snapshot: WorkflowSnapshot = { ...next, updatedAt: at, owner: from.owner };
    const start = role.kind === 'start';
    const event = role.kind === 'start' || role.kind === 'transition' ? (role.event ?? null) : null;
    const record = transitionRecord(call, instance, { from: start ? null : from.state, to: next.state, event, at });
    await this.observer.commit(call, async () => {
      switch (hold.kind) {
        case 'transaction':
          return hold.transaction.commit(instance.storeKey, { snapshot, record }, { insert: true }).catch(async (error: unknown) => {
            await hold.transaction.rollback();
            throw error;
          });
        case 'lock':
          if (!(await hold.lock.commit({ snapshot, record }))) {
            throw deny({
              code: 'LEASE_EXPIRED',
              machine: instance.machine,
              state: hold.lock.snapshot.state,
              leaseMs: this.options.leaseMs,
            });
          }
          return;
        case 'none':
          return this.store.create(instance.storeKey, snapshot, record);
      }
    });
    this.bus.publish({ machine: instance.machine, storeKey: instance.storeKey, state: next.state, origin: call.caller });
    return { state: next.state };
  }

  /** Lets go of what a call holds: a claim's lease, or a transaction that was not committed. */
  protected async release(call: WorkflowCall, hold: WorkflowHold): Promise<void> {
    try {
      if (hold.kind === 'lock') await hold.lock.release();
      if (hold.kind === 'transaction') await hold.transaction.rollback();
    } catch (error) {
      this.logger.error(messages.releaseFailed(call.tool.name, error));
    }
  }

  /** Admits `instance` as a read does, without claiming it; answers it as read, and as stored (`undefined`: a session's instance not stored yet). */
  private async readInstance(call: WorkflowCall, instance: WorkflowInstanceRef): Promise<Omit<ConfirmationSubject, 'instance'>> {
    const stored = await this.store.load(instance.storeKey);
    // A session's instance exists once its first transition ran; until then it is the initial one.
    const read = stored ?? (instance.scope === 'handle' ? undefined : this.initialSnapshot(instance.machine));
    if (!read || !isOwnedBy(read.owner, call.principal)) {
      throw deny({ code: 'UNKNOWN_HANDLE', machine: instance.machine, key: this.handleKey(instance.machine), handle: instance.handle });
    }
    const snapshot = this.found(call, instance, read);
    const { role } = call.tool;
    const engine = this.machines.engine(instance.machine);
    if ((role.kind === 'bound' || role.kind === 'transition') && !role.states.some((state) => engine.matches(snapshot.state, state))) {
      throw deny({ code: 'FORBIDDEN', machine: instance.machine, state: snapshot.state }, { instance, snapshot });
    }
    return { snapshot, stored };
  }

  /** The instance the call acts on, once known to be the caller's: refused in a state the machine does not have, else shown in the handler's context. */
  private found(call: WorkflowCall, instance: WorkflowInstanceRef, snapshot: WorkflowSnapshot): WorkflowSnapshot {
    if (!this.machines.engine(instance.machine).knows(snapshot.state)) {
      this.unknownStates.report(instance.machine, snapshot.state, instance.storeKey);
      throw deny({ code: 'UNKNOWN_STATE', machine: instance.machine, state: snapshot.state });
    }
    Object.assign(call.context, {
      machine: instance.machine,
      handle: instance.handle,
      state: toStateValue(snapshot.state),
      workflowContext: snapshot.context,
    });
    return snapshot;
  }

  /** Runs a step of the gate; a store failure becomes STATE_UNAVAILABLE (detail in the log, not for the model; a start tool's new handle, when minted, named). */
  private async step<T>(call: WorkflowCall, handlerRan: boolean, work: () => Promise<T>, instance?: WorkflowInstanceRef): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof WorkflowRefusal || error instanceof WorkflowDenial) {
        throw error;
      }
      const role = this.roleOf(call);
      this.logger.error(messages.storeFailed(call.tool.name, role.machine, error), error instanceof Error ? error.stack : undefined);
      throw this.refusals.stateUnavailable(call, role.machine, handlerRan, role.kind === 'start' ? instance?.handle : undefined);
    }
  }

  /** What a step's error tells the caller: a denial becomes the call's refusal; anything else stays as it is. */
  private refusalOf(call: WorkflowCall, error: unknown): unknown {
    return error instanceof WorkflowDenial ? this.refusals.of(call, error.reason) : error;
  }

  /** The role of a call the gate runs (never an ungated one: those pass it by). */
  private roleOf(call: WorkflowCall): McpGatedRole {
    const { role } = call.tool;
    if (role.kind === 'ungated') {
      throw new Error(messages.notGated(call.tool.name));
    }
    return role;
  }

  private initialSnapshot(machine: string): WorkflowSnapshot {
    return { ...this.machines.engine(machine).initial(), updatedAt: new Date().toISOString() };
  }

  private handleKey(machine: string): string {
    return this.machines.machine(machine).stateHandleKey ?? '';
  }
}
