import { Injectable } from '@nestjs/common';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import type { WorkflowWaitingRequest } from '../stores/workflow-waiting-request.interface.js';
import { authOf, mayAccess } from './workflow-access.js';
import { WorkflowCall, type WorkflowCaller } from './workflow-call.js';
import { WorkflowGate } from './workflow-gate.js';
import * as messages from './gating.messages.js';
import { waitingRequestOf } from './approval-request.js';
import { actorAuth, appCaller, type McpWorkflowDecision } from './back-office.request.js';
import { McpApprovalsService } from './mcp-approvals.service.js';
import { END_TOOL, endingCaller, endRequest, endRole } from './end.request.js';
import type { McpMachineRef } from '../decorators/machine-ref.type.js';
import type { McpTransitionRole } from '../registry/mcp-handler-role.js';
import type { McpWorkflowEvent, McpWorkflowEventTarget, McpWorkflowSendOptions, McpWorkflowSendResult } from './outside-event.interface.js';
import {
  checkedText,
  outsideEventOf,
  outsideEventRequest,
  outsideEventRole,
  sentState,
  type OutsideEventCall,
} from './outside-event.request.js';

/** The same caller as another object: a change it makes is not its connection's call's (its session is told like any other). */
function detached(caller: WorkflowCaller): WorkflowCaller {
  return { kind: caller.kind, sessionStoreKey: (machine) => caller.sessionStoreKey(machine), grants: caller.grants };
}

/** Which instance to act on; by default the one of the current call. */
export interface McpWorkflowRef {
  /** Machine id. @default the call's machine (`ctx.machine`) */
  machine?: string;
  /** Handle of a handle-keyed machine's instance. @default the call's handle (`ctx.handle`) */
  handle?: string;
}

/** An instance of a handle-keyed machine, named from the app's own code. */
export interface McpWorkflowHandleRef {
  /** Machine id. */
  machine: string;
  /** The instance's handle. */
  handle: string;
}

/** What `McpWorkflowService` reads of a handler's `@McpContext()`: a `McpToolContext` or a `WorkflowContext`. */
export type McpWorkflowCallContext = Pick<McpToolContext, 'toolName' | 'machine' | 'handle'>;

/** An instance as the current caller may see it. */
export interface McpWorkflowInstance {
  machine: string;
  /** The handle (handle-keyed machines). */
  handle?: string;
  state: string;
  /** XState context (machines with context). */
  context?: Record<string, unknown>;
  /** Whether the machine is done (a top-level final state). */
  final: boolean;
  /** Tools allowed in `state`. */
  allowedTools: string[];
  /** Last change; absent for a session's instance no transition has stored yet (it is in the initial state). */
  updatedAt?: string;
  /** The call waiting for a second person's approval (`@McpApproval`), while the instance waits in its state. */
  waiting?: WorkflowWaitingRequest;
}

/**
 * Reads and ends workflow instances for the caller of the current tool call, with the gate's
 * rules: the store key format and the ownership check stay inside (another client's or an
 * unknown handle reads as `undefined`). Inject it in tool providers and pass `@McpContext()`.
 *
 * @example
 * \@McpTool({ name: 'payment.status', description: 'Show a payment', inputSchema })
 * async status(\@McpContext() ctx: WorkflowContext<typeof paymentMachine>) {
 *   const payment = await this.workflows.get(ctx); // the gate already resolved ctx.handle
 *   return { state: ctx.state, final: payment?.final, allowed: payment?.allowedTools };
 * }
 */
@Injectable()
export class McpWorkflowService {
  /** The role of each outside event sent so far, by machine and event. */
  private readonly eventRoles = new Map<string, McpTransitionRole>();
  /** The store's receipt table, once checked (by the first send with an idempotency key). */
  private eventSchema?: Promise<void>;

  constructor(
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    private readonly tools: McpToolRegistry,
    private readonly gate: WorkflowGate,
    private readonly approvals: McpApprovalsService,
  ) {}

  /**
   * Approves, from the app's own code (a back office), the request `requestId` waiting on the
   * instance for a second person (`@McpApproval`), as its approve tool would: through the gate,
   * under its claim, exactly once; the call's handler runs with its stored arguments. `actor` is
   * who approves and is never who asked (SELF_APPROVAL). The app vouches for the actor's
   * authority: the approvers' grants are not checked here, and the instance is reached whoever
   * owns it (to decide as a person, with their access rule and grants, use `McpApprovalsService`).
   * Throws the gate's refusal (a `WorkflowRefusal`: STALE_REQUEST when `requestId` is not the one
   * waiting, SELF_APPROVAL, BUSY, GUARD_REJECTED, …).
   *
   * @example
   * const { requestId } = (await workflows.waiting(ref))!;
   * await workflows.approve({ machine: 'payment', handle: paymentId }, { actor: 'carol', requestId });
   */
  approve(ref: McpWorkflowHandleRef, options: { actor: string; requestId: string }): Promise<McpWorkflowDecision> {
    return this.approvals.decideAsApp({ ...ref, requestId: options?.requestId, verdict: 'approve' }, options?.actor);
  }

  /**
   * Rejects, from the app's own code, the request `requestId` waiting on the instance: it never
   * runs, and the instance goes back to where the call found it (or to `rejectTo`); `reason` is
   * kept in its history. An `actor` who asked for it withdraws it. Otherwise as
   * {@link McpWorkflowService.approve}.
   */
  reject(ref: McpWorkflowHandleRef, options: { actor: string; requestId: string; reason?: string }): Promise<McpWorkflowDecision> {
    const { actor, requestId, reason } = options ?? {};
    return this.approvals.decideAsApp({ ...ref, requestId, verdict: 'reject', ...(reason === undefined ? {} : { reason }) }, actor);
  }

  /**
   * Sends an outside event (a webhook, a queue message) to an instance, from any provider: through
   * the gate as a tool call would, under its claim (exactly once across processes), with the
   * machine's guards (`event.principal.id` is `actor`), the effect `run` as its handler, one
   * history row naming `actor`, telemetry, the relay and `list_changed` to the sessions that
   * follow the instance. With `idempotencyKey` the event is applied once per key: the receipt
   * commits with the state, and a later send with the key answers `{ applied: false }`, changing
   * nothing. Rejects with the gate's refusal (a `WorkflowRefusal`: FORBIDDEN naming the state when
   * it does not take the event, GUARD_REJECTED, UNKNOWN_HANDLE, BUSY, …) or with the effect's
   * error (nothing stored). See docs/deadlines-and-events.md#outside-events.
   *
   * @example
   * const { applied, state } = await workflows.send({ machine: paymentMachine, handle: paymentId }, 'VOID', {
   *   actor: 'psp',
   *   idempotencyKey: webhook.id,
   *   run: (ctx) => ledger.insert(ctx.manager!, { paymentId: ctx.handle, kind: 'void' }),
   * });
   */
  async send<const TMachine extends McpMachineRef, TManager = unknown>(
    ref: McpWorkflowEventTarget<TMachine>,
    event: McpWorkflowEvent<TMachine>,
    options: McpWorkflowSendOptions<TMachine, TManager>,
  ): Promise<McpWorkflowSendResult<TMachine>> {
    const send = this.outsideEvent(ref, event, options);
    if (send.idempotencyKey !== undefined) await this.eventLogReady();
    const storeKey = formatInstanceKey({ machine: send.role.machine, scope: 'handle', id: send.handle });
    const found = await this.store.load(storeKey);
    const before = await this.alreadyApplied(storeKey, send.idempotencyKey, found);
    if (before) return before as McpWorkflowSendResult<TMachine>;
    const outcome = await this.gate.run(outsideEventRequest(send, found, (call, body, input) => this.gate.handle(call, body, input)));
    try {
      return { applied: true, state: sentState(outcome) } as McpWorkflowSendResult<TMachine>;
    } catch (error) {
      // A send of the same key may have committed between the check above and this one's commit (which its receipt then failed).
      const raced = send.idempotencyKey === undefined ? undefined : await this.store.load(storeKey);
      const after = await this.alreadyApplied(storeKey, send.idempotencyKey, raced);
      if (after) return after as McpWorkflowSendResult<TMachine>;
      throw error;
    }
  }

  /** The request waiting for approval on the instance (its `requestId` is what a decision names), read by the app's own code (whoever owns it); `undefined` when nothing waits. */
  async waiting(ref: McpWorkflowHandleRef): Promise<WorkflowWaitingRequest | undefined> {
    if (!this.machines.machine(ref.machine).stateHandleKey) return undefined;
    const storeKey = formatInstanceKey({ machine: ref.machine, scope: 'handle', id: ref.handle });
    return waitingRequestOf(await this.store.load(storeKey), storeKey);
  }

  /** The instance, or `undefined` when there is none the caller may see. */
  async get(ctx: McpWorkflowCallContext, ref: McpWorkflowRef = {}): Promise<McpWorkflowInstance | undefined> {
    const found = await this.find(ctx, ref);
    if (!found) {
      return undefined;
    }
    const { machine, handle, snapshot } = found;
    const engine = this.machines.engine(machine);
    return {
      machine,
      handle,
      state: snapshot.state,
      context: snapshot.context,
      final: engine.knows(snapshot.state) && engine.isFinal(snapshot.state),
      allowedTools: [...this.tools.usableBy(this.tools.allowedNames(machine, snapshot.state), WorkflowCall.of(ctx)?.caller.grants)],
      updatedAt: snapshot.updatedAt || undefined,
      ...(snapshot.waiting && { waiting: waitingRequestOf(snapshot, found.storeKey) }),
    };
  }

  /** The instance's transitions, oldest first (empty when the store keeps no history, or the caller may not see it). */
  async history(ctx: McpWorkflowCallContext, ref: McpWorkflowRef = {}): Promise<WorkflowTransitionRecord[]> {
    const found = await this.find(ctx, ref);
    return found ? this.store.history(found.storeKey) : [];
  }

  /**
   * Ends the instance the caller of the current call may see: through the gate, under a claim
   * (BUSY while another call holds it, the current call's own claim included), it is deleted
   * with a last history row (event `mcp.end`, naming the caller and the tool whose handler
   * ended it; its timers and attempts go with it), and the sessions that follow it are told.
   * Answers `false` when there is none the caller may see; a handle-keyed instance's handle is
   * unknown after it. Throws the gate's refusal (a `WorkflowRefusal`) when it cannot end it.
   */
  end(ctx: McpWorkflowCallContext, ref?: McpWorkflowRef): Promise<boolean>;
  /**
   * Ends an instance from the app's own code (a back office, an operator's console), as `actor`,
   * whoever owns it: the app vouches for the actor's authority. Otherwise as above; `false` when
   * there is no such instance.
   *
   * @example
   * await workflows.end({ machine: 'payment', handle: paymentId }, { actor: 'ops:olivia' });
   */
  end(ref: McpWorkflowHandleRef, options: { actor: string }): Promise<boolean>;
  async end(target: McpWorkflowCallContext | McpWorkflowHandleRef, second: McpWorkflowRef | { actor: string } = {}): Promise<boolean> {
    const actor = 'actor' in second ? checkedText('actor', second.actor) : undefined;
    const call = actor === undefined ? WorkflowCall.of(target) : undefined;
    const found =
      actor === undefined
        ? await this.find(target as McpWorkflowCallContext, second as McpWorkflowRef)
        : await this.findByHandle(target as McpWorkflowHandleRef);
    if (!found?.stored) {
      return false;
    }
    if (!this.store.supports.delete) {
      throw new Error(messages.endNeedsDelete(this.store.name));
    }
    const { machine, handle, storeKey, snapshot } = found;
    const role = endRole(machine, this.machines.engine(machine).statePaths());
    const handleKey = this.machines.machine(machine).stateHandleKey;
    const args = handleKey && handle !== undefined ? { [handleKey]: handle } : {};
    const handler = (ended: WorkflowCall, body: () => Promise<unknown>, input: Record<string, unknown>) =>
      this.gate.handle(ended, body, input);
    // The caller's own instance: its call's answer tells its session (in-band); any other: every session that follows it.
    const own = call !== undefined && this.gate.admittedOn(call, storeKey);
    const who = call
      ? { caller: own ? call.caller : detached(call.caller), authInfo: call.context.authInfo, sessionId: call.context.sessionId }
      : { caller: endingCaller(appCaller(), snapshot), authInfo: actorAuth(actor!) };
    const outcome = await this.gate.run(endRequest(role, call ? call.tool.name : END_TOOL, handler, who, args));
    if (outcome.status === 'failed') throw outcome.refusal ?? outcome.error;
    if (own) this.gate.endedOwn(call);
    return true;
  }

  /** A handle-keyed instance, read by the app's own code (whoever owns it). */
  private async findByHandle(ref: McpWorkflowHandleRef) {
    const machine = this.machines.has(ref.machine) ? this.machines.machine(ref.machine) : undefined;
    if (!machine?.stateHandleKey) throw new Error(messages.sendNeedsHandleMachine(ref.machine, Boolean(machine)));
    const handle = checkedText('handle', ref.handle);
    const storeKey = formatInstanceKey({ machine: machine.id, scope: 'handle', id: handle });
    const snapshot = await this.store.load(storeKey);
    return snapshot && { machine: machine.id, handle, storeKey, snapshot, stored: true };
  }

  /** Checks what `send` was given, and finds the event's role; throws, naming what is wrong, for a bad target, event or option. */
  private outsideEvent(
    ref: McpWorkflowEventTarget,
    event: McpWorkflowEvent,
    options: McpWorkflowSendOptions<McpMachineRef, never>,
  ): OutsideEventCall {
    const machine = typeof ref?.machine === 'string' ? ref.machine : ref?.machine?.id;
    const handleKey = machine !== undefined && this.machines.has(machine) ? this.machines.machine(machine).stateHandleKey : undefined;
    if (!machine || !handleKey)
      throw new Error(messages.sendNeedsHandleMachine(String(machine), Boolean(machine && this.machines.has(machine))));
    const sent = outsideEventOf(event);
    const actor = checkedText('actor', options?.actor);
    const idempotencyKey = options.idempotencyKey === undefined ? undefined : checkedText('idempotencyKey', options.idempotencyKey);
    const key = `${machine}\u0000${sent.type}`;
    let role = this.eventRoles.get(key);
    if (!role) {
      role = outsideEventRole(machine, this.machines.engine(machine), sent.type, this.store.supports.transactions);
      this.eventRoles.set(key, role);
    }
    return { role, event: sent, handleKey, handle: checkedText('handle', ref.handle), actor, idempotencyKey, run: options.run };
  }

  /** `{ applied: false, state }` when the instance (as `snapshot` found it) has the receipt of `idempotencyKey`; else `undefined`. */
  private async alreadyApplied(
    storeKey: string,
    idempotencyKey: string | undefined,
    snapshot: WorkflowSnapshot | undefined,
  ): Promise<McpWorkflowSendResult | undefined> {
    if (!snapshot || idempotencyKey === undefined || !(await this.store.events.hasEvent(storeKey, idempotencyKey))) return undefined;
    return { applied: false, state: snapshot.state };
  }

  /** Resolves once the store can keep receipts: it has them, and (checked once) its receipt table is there. */
  private eventLogReady(): Promise<void> {
    if (!this.store.supports.events) return Promise.reject(new Error(messages.sendNeedsEventLog(this.store.name)));
    this.eventSchema ??= Promise.resolve(this.store.events.assertEventSchema?.()).catch((error: unknown) => {
      this.eventSchema = undefined;
      throw error;
    });
    return this.eventSchema;
  }

  private async find(ctx: McpWorkflowCallContext, ref: McpWorkflowRef) {
    const call = WorkflowCall.of(ctx);
    const machine = ref.machine ?? ctx.machine;
    if (!call || !machine || !this.machines.has(machine)) {
      throw new Error(messages.noWorkflowInCall(ctx.toolName));
    }
    const handleKeyed = Boolean(this.machines.machine(machine).stateHandleKey);
    const handle = handleKeyed ? (ref.handle ?? (machine === ctx.machine ? ctx.handle : undefined)) : undefined;
    const storeKey = handleKeyed
      ? handle && formatInstanceKey({ machine, scope: 'handle', id: handle })
      : call.caller.sessionStoreKey(machine);
    if (!storeKey) {
      return undefined;
    }
    const loaded = await this.store.load(storeKey);
    const snapshot: WorkflowSnapshot | undefined =
      loaded ?? (handleKeyed ? undefined : { ...this.machines.engine(machine).initial(), updatedAt: '' });
    const target = { machine, scope: handleKeyed ? ('handle' as const) : ('session' as const), handle };
    if (!snapshot || !mayAccess(authOf(call), this.machines.machine(machine), target, snapshot)) {
      return undefined;
    }
    return { machine, handle, storeKey, snapshot, stored: loaded !== undefined };
  }
}
