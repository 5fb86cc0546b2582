import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor, Optional } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { from, isObservable, lastValueFrom, type Observable } from 'rxjs';
import type { MachineEngine, MachineState, MachineStep } from '../machines/machine-engine.interface.js';
import { chainTimers } from '../machines/machine-timers.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpGatedRole, McpToolConfirmation } from '../registry/mcp-handler-role.js';
import { WorkflowTransitionBus } from '../relays/workflow-transition.bus.js';
import { buildCallResult } from '../results/call-result.builder.js';
import { isInputRequired, type McpInputRequired } from '../results/input-required.js';
import { isToolErrorResult } from '../results/tool-output.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { MCP_ERROR_META_KEY } from '../mcp.constants.js';
import { toolErrorResult } from '../results/tool-result.mapper.js';
import type { WorkflowApprovalNote, WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';
import type { McpMachineApproval, McpPrincipal } from '../machines/machine-access.js';
import { WorkflowAdmissions } from './workflow-admissions.js';
import { WorkflowApprovals, type WorkflowApprovedSend, type WorkflowWaitingResult } from './workflow-approvals.js';
import { answeredOutcome, failedOutcome } from './call-report.js';
import { WorkflowCommits, type WorkflowAnswered } from './workflow-commits.js';
import { WorkflowReceipts } from './workflow-receipts.js';
import { WorkflowConfirmations, type ConfirmationSubject, type ConfirmedSubject } from './workflow-confirmations.js';
import { GateVisit, type AdmittedCall, type GateReport } from './gate-visit.js';
import * as messages from './gating.messages.js';
import { refusedBeforeGate } from './hidden-tool.refusal.js';
import { authOf, principalOf, starterOf } from './workflow-access.js';
import { heldIn, sightedIn, WorkflowCall, type WorkflowRequest } from './workflow-call.js';
import type { WorkflowCallOutcome } from './workflow-call-outcome.js';
import {
  withTimers,
  type McpCallResult,
  type WorkflowAdmission,
  type WorkflowCallWaiting,
  type WorkflowDecision,
  type WorkflowHold,
  type WorkflowInstanceRef,
  type WorkflowSighting,
  type WorkflowStored,
} from './workflow-step-values.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from './workflow-gate-options.interface.js';
import { SILENT_GATE_OBSERVER, WORKFLOW_GATE_OBSERVER, type WorkflowGateObserver } from './workflow-gate-observer.interface.js';
import { deny, WorkflowDenial, WorkflowStoreFailure } from './workflow-denial.js';
import { WorkflowRefusal } from './workflow-refusal.js';
import { WorkflowRefusals } from './workflow-refusals.js';

const NOTHING_HELD: WorkflowHold = { kind: 'none' };

/** How the gate's part of a call ended: what it stored, its refusal, whether it asked, and its result's fields. */
interface GateEnd {
  readonly stored?: WorkflowStored;
  readonly refusal?: WorkflowRefusal;
  readonly asking: boolean;
  readonly result?: GateReport['result'];
  readonly extra: GateReport['extra'];
  readonly waiting?: GateReport['waiting'];
  /** How the call decided a waiting request, when it did. */
  readonly decided?: WorkflowApprovalNote;
}
const ENDED: WorkflowStored = { state: null };

/**
 * The gate: runs every call, from its request to its outcome, as steps that each answer a
 * value: admit ({@link WorkflowAdmissions}: resolve, check it is the caller's, claim) → decide
 * the transition → run the handler → commit or release ({@link WorkflowCommits}) → publish.
 * Where it runs among guards, interceptors and pipes: see docs/pipeline.md#where-the-gate-runs;
 * subclassing it: see docs/extending.md#subclassing-the-gate.
 */
@Injectable()
export class WorkflowGate implements NestInterceptor {
  protected readonly logger = new Logger('McpGate');
  /** Told of each call's claim, commit and end (telemetry); a property, so subclasses' constructors stay as they are. */
  @Optional()
  @Inject(WORKFLOW_GATE_OBSERVER)
  protected readonly observer: WorkflowGateObserver = SILENT_GATE_OBSERVER;
  /** The second person's approvals (`@McpApproval`); a property, so subclasses' constructors stay as they are. */
  @Inject(WorkflowApprovals)
  protected readonly approvals!: WorkflowApprovals;
  /** The receipts of keyed calls; a property, so subclasses' constructors stay as they are. */
  @Inject(WorkflowReceipts)
  protected readonly receipts!: WorkflowReceipts;

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) protected readonly options: WorkflowGateOptions,
    protected readonly store: FsmStoreAdapter,
    protected readonly machines: McpMachineRegistry,
    protected readonly refusals: WorkflowRefusals,
    protected readonly bus: WorkflowTransitionBus,
    protected readonly admissions: WorkflowAdmissions,
    protected readonly commits: WorkflowCommits,
    protected readonly confirmations: WorkflowConfirmations,
  ) {}

  /**
   * Runs one call (every tool call, prompt get and resource read) and answers how it ended. Its
   * pipeline enters the gate where it belongs ({@link WorkflowGate.intercept}, {@link WorkflowGate.handle});
   * when the request's cutoff aborts before the call began to commit, the outcome is its reason, at once.
   * A keyed call that a receipt answers runs nothing; one that failed answers a receipt a repeat committed meanwhile.
   * The call carries the gate's visit of it through its pipeline: what the gate reports of it comes back there.
   */
  async run(request: WorkflowRequest): Promise<WorkflowCallOutcome> {
    const call = new WorkflowCall({ ...request, ...(await this.approvals.argsOf(request)) }, new GateVisit());
    return (await this.receipts.recall(call)) ?? this.receipts.afterFailure(call, await this.invoked(call, request.transport));
  }

  /** The outcome of the call's pipeline (the gate enters it where it belongs), as the gate reported it. */
  private async invoked(call: WorkflowCall, transport: WorkflowRequest['transport']): Promise<WorkflowCallOutcome> {
    try {
      const value = await call.unlessAbandoned(() => call.tool.invoke([...transport, call]));
      return answeredOutcome(call, call.visit.report, value);
    } catch (error) {
      const report = call.visit.report;
      return report
        ? failedOutcome(call, report, error)
        : refusedBeforeGate(call, error, { machines: this.machines, store: this.store, refusals: this.refusals, observer: this.observer });
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
   * The gate around a handler (given the call's admission and what it decided; it answers a value, a promise or an
   * observable), answering its value: `input` is what the machine's guards and actions see as `event.input`, the
   * arguments after the pipes.
   */
  handle(
    call: WorkflowCall,
    handler: (admission: WorkflowAdmission, decision: WorkflowDecision | undefined) => unknown,
    input: Record<string, unknown> = call.args,
  ): Promise<unknown> {
    const body = async (admission: WorkflowAdmission, decision: WorkflowDecision | undefined) => {
      const value = await handler(admission, decision);
      return isObservable(value) ? lastValueFrom(value, { defaultValue: undefined }) : value;
    };
    return this.enter(call, body, input);
  }

  /**
   * Decides the admitted call's transition with the arguments after the pipes: the method's stand-in calls it when the
   * gate runs among interceptors. Answers what the call answers instead of running its method when it waits for a
   * second person's approval (`@McpApproval`).
   */
  async decideWith(call: WorkflowCall, input: Record<string, unknown>): Promise<WorkflowWaitingResult | undefined> {
    const decision = await call.visit.admitted?.decide(input);
    return decision?.waiting ? this.waitingValue(call, decision.waiting) : undefined;
  }

  /** Whether `call` was admitted on the instance at `storeKey`, and the gate is still at it: its handler acts on its own instance. */
  admittedOn(call: WorkflowCall, storeKey: string): boolean {
    return call.visit.admitted?.admission.instance.storeKey === storeKey;
  }

  /** Records that the call's handler ended its own instance (`McpWorkflowService.end`): its outcome stores the end. */
  endedOwn(call: WorkflowCall): void {
    call.visit.endOwn();
  }

  /**
   * One gated call, top to bottom: the claim is committed or let go whatever happens; a call abandoned at shutdown (see
   * {@link WorkflowCall.unlessAbandoned}) is never committed. With `input` (the gate around the method) the gate decides
   * and its answer is the call's result; among interceptors, the method's stand-in decides and the app's outer ones may
   * change the value.
   */
  private async enter(
    call: WorkflowCall,
    body: (admission: WorkflowAdmission, decision: WorkflowDecision | undefined) => Promise<unknown>,
    input: Record<string, unknown> | undefined,
  ): Promise<unknown> {
    const role = this.roleOf(call);
    let running: Promise<unknown> | undefined;
    let seen: WorkflowSighting | undefined;
    let hold = NOTHING_HELD;
    let end: GateEnd = { asking: false, extra: {} };
    try {
      const asked =
        role.kind === 'transition' && role.confirmation ? await this.confirm(call, role.confirmation, input ?? call.args) : undefined;
      if (isInputRequired(asked)) {
        end = { ...end, asking: true };
        return asked;
      }
      seen = asked;
      if (asked) call.show({ confirmation: asked.confirmation });
      const admission = await this.step(call, false, () => this.admit(call));
      seen = admission;
      hold = admission.hold;
      if (asked) {
        this.checkAsked(asked, admission);
      }
      // An end takes the instance in whatever state it is: its handler, which does nothing, is shown only what it holds.
      call.show(role.kind === 'transition' && role.ends ? heldIn(hold) : { ...sightedIn(admission), ...heldIn(hold) });
      const extra = role.kind === 'start' ? { [role.handleKey]: admission.instance.handle } : {};
      end = { ...end, extra };
      const decided = this.decider(call, admission);
      call.visit.admit({ admission, decide: decided });
      // Around the method the gate decides now, with the piped arguments; among interceptors the method's stand-in does.
      const early = input ? await decided(input) : undefined;
      const value = early?.waiting
        ? this.waitingValue(call, early.waiting)
        : await call.unlessAbandoned(() => (running = body(admission, early)));
      running = undefined;
      if (isToolErrorResult(value) || isInputRequired(value)) {
        end = { ...end, asking: isInputRequired(value) };
        return value;
      }
      const result = buildCallResult(call, value, extra);
      const decision = input ? early : await decided(undefined);
      const waiting = decision?.waiting && this.waitingOf(call, decision.waiting);
      call.beginCommit();
      // From here the claim is the commit's: it stores the change or lets go of it itself.
      hold = NOTHING_HELD;
      const stored =
        decision && (await this.step(call, true, () => this.complete(call, admission, decision, { result, waiting }), admission.instance));
      end = { ...end, stored, result: input ? result : undefined, waiting, decided: decision?.approval };
      if (decision?.approval) {
        await this.approvals.settleTask(call, decision, admission, () => this.decidedResult(call, decision, result));
      }
      return value;
    } catch (error) {
      const thrown = this.refusalOf(call, error);
      end = { ...end, refusal: thrown instanceof WorkflowRefusal ? thrown : undefined };
      seen = (error instanceof WorkflowDenial && error.seen) || seen;
      throw thrown;
    } finally {
      this.settle(call, seen, end);
      if (running && call.abandoned && call.context.manager) {
        // The handler still writes through the call's transaction: it rolls back once the handler
        // is done, never under it (on SQLite's one connection its later writes would commit alone).
        const release = () => this.release(call, hold);
        void running.then(release, release);
      } else if (hold.kind !== 'none') {
        await this.release(call, hold);
      }
    }
  }

  /**
   * Gets the person's yes for a confirmed transition (`@McpConfirm`) before anything is claimed: the instance is read and
   * refused as any call would be (and shown in the handler's context, which the question's message may read), then
   * {@link WorkflowConfirmations.ask} asks. Answers the question a 2026-07-28 call returns instead of running, or the
   * instance the person said yes about, with what they filled in.
   */
  protected async confirm(
    call: WorkflowCall,
    confirmation: McpToolConfirmation,
    input: Record<string, unknown>,
  ): Promise<McpInputRequired | ConfirmedSubject> {
    const role = this.roleOf(call);
    const subject = await this.step(call, false, () =>
      this.admissions.askable(call, role as Extract<McpGatedRole, { kind: 'transition' }>),
    );
    call.show(sightedIn(subject));
    const answer = await this.confirmations.ask(call, confirmation, input, subject);
    return isInputRequired(answer) ? answer : { ...subject, confirmation: answer };
  }

  /** Admits the call or refuses it: nothing after this runs for a refused call. */
  protected admit(call: WorkflowCall): Promise<WorkflowAdmission> {
    return this.admissions.admit(call, this.roleOf(call));
  }

  /** Computes where the admitted call leads (its start, or its bound transition) with `input` as `event.input`; nothing for a read. */
  protected decide(call: WorkflowCall, admission: WorkflowAdmission, input: Record<string, unknown>): WorkflowDecision | undefined {
    const role = this.roleOf(call);
    const engine = this.machines.engine(admission.instance.machine);
    switch (role.kind) {
      case 'start': {
        const starter = starterOf(call.context.authInfo, this.machines.machine(admission.instance.machine));
        const from = { ...engine.initial(input), updatedAt: admission.snapshot.updatedAt, ...starter };
        call.show(sightedIn({ instance: admission.instance, snapshot: from }));
        const step = role.event ? this.moved(call, engine, from, role.event, input) : undefined;
        return withTimers({ from, next: step?.next ?? from }, chainTimers(engine.initialTimers(input), step?.timers));
      }
      case 'transition': {
        if (role.ends) return { from: admission.snapshot, next: admission.snapshot, ends: true };
        if (role.decision) {
          // The approved transition's timers go with it (an approved call into a state with `after` schedules them).
          const send: WorkflowApprovedSend = (from, event, stored, as) => this.moved(call, engine, from, event, stored, as);
          const decision = this.approvals.decide(call, admission, role, send);
          const from = this.admissions.known(admission.instance, decision.from);
          call.show({
            ...sightedIn({ instance: admission.instance, snapshot: from }),
            ...(decision.approved && { approval: decision.approved }),
          });
          return decision;
        }
        const step = this.moved(call, engine, admission.snapshot, role.event, input);
        // A session's instance the claim just created enters the initial state with this commit: its timers start too.
        const created = admission.hold.kind === 'lock' && admission.hold.lock.created;
        const timers = created ? chainTimers(engine.initialTimers(), step.timers) : step.timers;
        const decision = withTimers({ from: admission.snapshot, next: step.next }, timers);
        return role.approval ? this.approvals.park(call, role, decision, input) : decision;
      }
      default:
        return undefined;
    }
  }

  /**
   * Sends `event` to the instance with `input` as `event.input` and the caller as
   * `event.principal` (from the verified auth), answering the step with the timers it schedules
   * and cancels; refuses when no transition is enabled (a guard said no, with the reasons the
   * machine gives, or the state has none). Every transition the gate decides goes through it,
   * an approved request's too: `as` then names the requester as `event.principal` and the
   * approval as `event.approval`.
   */
  protected moved(
    call: WorkflowCall,
    engine: MachineEngine,
    from: MachineState,
    event: string,
    input: Record<string, unknown>,
    as?: { principal: McpPrincipal | undefined; approval: McpMachineApproval },
  ): Extract<MachineStep, { status: 'moved' }> {
    const principal = as ? as.principal : principalOf(authOf(call), this.machines.machine(engine.machineId));
    const step = engine.transition({ state: from.state, context: from.context }, event, input, principal, as?.approval);
    switch (step.status) {
      case 'moved':
        return step;
      case 'guarded':
        throw deny({
          code: 'GUARD_REJECTED',
          machine: engine.machineId,
          state: from.state,
          event,
          guards: step.guards,
          reasons: step.reasons,
        });
      case 'ignored':
        throw deny({ code: 'FORBIDDEN', machine: engine.machineId, state: from.state });
    }
  }

  /** Stores what the successful call changed (under its claim, or as a new instance; a keyed call's receipt with it), then publishes it. */
  protected complete(
    call: WorkflowCall,
    admission: WorkflowAdmission,
    decision: WorkflowDecision,
    answered: WorkflowAnswered = {},
  ): Promise<WorkflowStored> {
    return this.commits.commit(call, this.roleOf(call), admission, decision, answered);
  }

  /** Lets go of what a call holds: a claim's lease, or a transaction that was not committed. */
  protected release(call: WorkflowCall, hold: WorkflowHold): Promise<void> {
    return this.commits.release(call, hold);
  }

  /** What a call that waits for a second person's approval (its request `waiting`) answers instead of its handler's value. */
  protected waitingValue(call: WorkflowCall, waiting: WorkflowWaitingRequest): WorkflowWaitingResult {
    const role = this.roleOf(call);
    if (role.kind !== 'transition' || !role.approval) {
      throw new Error(messages.notGated(call.tool.name));
    }
    return this.approvals.waitingValue(call, role.approval, role.machine, waiting);
  }

  /** How the outcome of a call that waits (its request `waiting`) tells it. */
  private waitingOf(call: WorkflowCall, waiting: WorkflowWaitingRequest): WorkflowCallWaiting {
    const value = this.waitingValue(call, waiting);
    return { state: value.state, statusMessage: value.message, requestId: waiting.requestId };
  }

  /** The result the task of a decided request completes with: the handler's, once approved; a DECLINED tool error, once rejected or withdrawn. */
  private decidedResult(call: WorkflowCall, decision: WorkflowDecision, result: McpCallResult): CallToolResult {
    if (decision.approval?.verdict === 'approved') {
      return result as CallToolResult;
    }
    const { machine } = this.roleOf(call);
    const why = this.approvals.declinedWhy(call, decision);
    const refusal = this.refusals.declined(call, machine, decision.next.state, why, this.approvals.requestedTool(call));
    return toolErrorResult(refusal.message, { [MCP_ERROR_META_KEY]: refusal.data });
  }

  /** After the claim of a confirmed call: the claimed instance must be as it was when the person was asked about it (`asked`). */
  private checkAsked(asked: ConfirmationSubject, claimed: WorkflowAdmission): void {
    const version = asked.stored?.updatedAt;
    if (version !== undefined && claimed.snapshot.updatedAt !== version) {
      const { machine } = claimed.instance;
      throw deny({ code: 'CONFIRMATION_REQUIRED', machine, state: claimed.snapshot.state, why: messages.changedWhileAsked(machine) });
    }
  }

  /** How the admitted call decides: once, with the first piped arguments it is given (`undefined` asks for the decision made, if any). */
  private decider(call: WorkflowCall, admission: WorkflowAdmission): AdmittedCall['decide'] {
    let decision: Promise<WorkflowDecision | undefined> | undefined;
    return (input) => {
      // The method's stand-in decides among the app's interceptors: they see the refusal, as the app's filters do.
      decision ??=
        input &&
        this.step(call, false, async () => this.decide(call, admission, input)).catch((error: unknown) => {
          throw this.refusalOf(call, error);
        });
      return decision ?? Promise.resolve(undefined);
    };
  }

  /** The gate is done with the call, having found `seen` and ended as `end`: tells its observer, and keeps the report {@link WorkflowGate.run} answers. */
  private settle(call: WorkflowCall, seen: WorkflowSighting | undefined, end: GateEnd): void {
    const settlement = {
      instance: seen?.instance,
      admitted: seen?.snapshot,
      stored: end.stored ?? (call.visit.endedOwn ? ENDED : undefined),
      refusal: end.refusal,
      abandoned: call.abandoned,
      asking: end.asking,
      ...(end.decided && { decided: end.decided }),
    };
    call.visit.settle({ settlement, result: end.result, extra: end.extra, ...(end.waiting && { waiting: end.waiting }) });
    this.observer.settled(call, settlement);
  }

  /** Runs a step of the gate; a store failure becomes STATE_UNAVAILABLE (detail in the log, not for the model; a start tool's new handle, when minted, named). */
  private async step<T>(call: WorkflowCall, handlerRan: boolean, work: () => Promise<T>, instance?: WorkflowInstanceRef): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof WorkflowRefusal || error instanceof WorkflowDenial) throw error;
      const role = this.roleOf(call);
      const cause = error instanceof WorkflowStoreFailure ? error.cause : error;
      const handle = error instanceof WorkflowStoreFailure ? error.handle : instance?.handle;
      this.logger.error(messages.storeFailed(call.tool.name, role.machine, cause), cause instanceof Error ? cause.stack : undefined);
      throw this.refusals.stateUnavailable(call, role.machine, handlerRan, role.kind === 'start' ? handle : undefined);
    }
  }

  /** What a step's error tells the caller: a denial becomes the call's refusal; anything else stays as it is. */
  private refusalOf(call: WorkflowCall, error: unknown): unknown {
    return error instanceof WorkflowDenial ? this.refusals.of(call, error.reason) : error;
  }

  /** The role of a call the gate runs (never an ungated one: those pass it by). */
  private roleOf(call: WorkflowCall): McpGatedRole {
    const { role } = call.tool;
    if (role.kind === 'ungated') throw new Error(messages.notGated(call.tool.name));
    return role;
  }
}
