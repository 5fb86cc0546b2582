import { Inject, Injectable } from '@nestjs/common';
import { z, type ZodObject } from 'zod';
import type { McpMachineRef } from '../decorators/machine-ref.type.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import { WORKFLOW_CONFIRMATION_OPTIONS, type WorkflowConfirmationOptions } from '../gating/confirmation-options.interface.js';
import type { MachineEngine } from '../machines/machine-engine.interface.js';
import { matchesEventDescriptor } from '../machines/xstate-transition-names.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { McpHandlerKind } from '../registry/mcp-tool-definition.interface.js';
import {
  isStateRole,
  type McpHandlerRole,
  type McpStartRole,
  type McpStateRole,
  type McpToolApproval,
  type McpToolConfirmation,
} from '../registry/mcp-handler-role.js';
import { isScopeToken } from '../access/access-requirement.js';
import { isExpiryDelay } from '../gating/approval-expiry.js';
import { confirmationQuestion } from './confirmation-question.js';
import * as messages from './discovery.messages.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';

type Method = (...args: unknown[]) => unknown;

/** The tool names MCP allows (SEP-986). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A bound or started part of a workflow, as the decorators declare it, before the arguments are known. */
type DeclaredRole = McpStateRole | McpStartRole;

/** A handler's part in a workflow, from `@McpBindState`, `@McpStartWorkflow` and its class's `@McpWorkflow`, and the arguments it takes. */
export interface McpWorkflowRole {
  workflow?: string;
  role: McpHandlerRole;
  /** The handler's schema, with the handle argument of a handle-keyed bound role added when it was missing. */
  inputSchema: ZodObject;
}

const DECORATOR: Record<McpHandlerKind, string> = { tool: '@McpTool', prompt: '@McpPrompt', resource: '@McpResource' };

/**
 * Resolves and checks, at bootstrap, the workflow decorators of a tool, prompt or resource
 * method: the machine, the states and event exist, the store supports what is asked; throws
 * naming class, method and decorator otherwise.
 */
@Injectable()
export class McpWorkflowRoles {
  constructor(
    private readonly accessor: McpMetadataAccessor,
    private readonly machines: McpMachineRegistry,
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    private readonly store: FsmStoreAdapter,
    @Inject(WORKFLOW_CONFIRMATION_OPTIONS) private readonly confirmations: WorkflowConfirmationOptions,
  ) {}

  /**
   * The method's role, for a handler whose arguments `schema` declares; prompts and resources
   * may be bound to states, but neither start an instance nor fire a transition. An unbound
   * handler of a workflow class reads its instance when the machine is session-keyed, or when
   * it takes the handle argument of a handle-keyed one.
   */
  resolve(kind: McpHandlerKind, source: string, metatype: Function, method: Method, schema: ZodObject): McpWorkflowRole {
    const classMachine = this.accessor.getWorkflow(metatype);
    const binding = this.resolveBinding(source, method, classMachine);
    const start = this.resolveStart(source, method, classMachine);
    if (binding && start) {
      throw new Error(messages.bindAndStartTogether(source));
    }
    const declared: DeclaredRole | undefined = binding ?? start;
    if (kind !== 'tool' && declared && declared.kind !== 'bound') {
      throw new Error(messages.onlyToolsMove(source, DECORATOR[kind]));
    }
    const confirmation = this.resolveConfirmation(source, method, declared);
    const approval = this.resolveApproval(source, method, declared);
    const role =
      declared?.kind === 'transition' && (confirmation || approval)
        ? { ...declared, ...(confirmation && { confirmation }), ...(approval && { approval }) }
        : declared;
    const workflow = declared?.machine ?? this.optionalMachineId(source, '@McpWorkflow', classMachine);
    const inputSchema = role && isStateRole(role) ? this.withHandleArgument(schema, role.machine) : schema;
    return { workflow, role: role ?? this.unbound(workflow, inputSchema), inputSchema };
  }

  /** The machine's handle argument key, when `machine` is handle-keyed. */
  handleKey(machine: string | undefined): string | undefined {
    return machine === undefined ? undefined : this.machines.machine(machine).stateHandleKey;
  }

  /** `@McpConfirm` of a tool bound to states with an event, of the binding's machine. */
  private resolveConfirmation(source: string, method: Method, declared: DeclaredRole | undefined): McpToolConfirmation | undefined {
    const meta = this.accessor.getConfirmation(method);
    if (!meta) {
      return undefined;
    }
    if (declared?.kind !== 'transition') {
      throw new Error(messages.confirmNeedsTransition(source));
    }
    const machine = this.requireMachineId(source, '@McpConfirm', meta.machine, '@McpConfirm');
    if (machine !== declared.machine) {
      throw new Error(messages.confirmOtherMachine(source, machine, declared.machine));
    }
    return confirmationQuestion(source, meta, this.confirmations.timeoutMs);
  }

  /** `@McpApproval` of a tool bound to states with an event, of the binding's handle-keyed machine, waiting in a state of its own. */
  private resolveApproval(source: string, method: Method, declared: DeclaredRole | undefined): McpToolApproval | undefined {
    const meta = this.accessor.getApproval(method);
    if (!meta) {
      return undefined;
    }
    if (declared?.kind !== 'transition') {
      throw new Error(messages.approvalNeedsTransition(source));
    }
    const machine = this.requireMachineId(source, '@McpApproval', meta.machine, '@McpApproval');
    if (machine !== declared.machine) {
      throw new Error(messages.approvalOtherMachine(source, machine, declared.machine));
    }
    if (!this.handleKey(machine)) {
      throw new Error(messages.approvalNeedsHandle(source, machine));
    }
    const engine = this.machines.engine(machine);
    const paths = engine.statePaths();
    const why = !paths.includes(meta.waitIn)
      ? 'is not a state of the machine'
      : declared.states.some((state) => engine.matches(meta.waitIn, state))
        ? 'is a state the tool itself is bound to'
        : engine.isFinal(meta.waitIn)
          ? 'is a final state (finished instances are swept)'
          : undefined;
    if (why) {
      throw new Error(messages.approvalWaitState(source, machine, meta.waitIn, why, paths));
    }
    for (const which of ['approve', 'reject'] as const) {
      if (typeof meta[which]?.name !== 'string' || !TOOL_NAME.test(meta[which].name)) {
        throw new Error(messages.approvalToolName(source, which, meta[which]?.name));
      }
    }
    for (const scope of meta.approvers.scopes) {
      if (!isScopeToken(scope)) throw new Error(messages.approverScopeInvalid(source, scope));
    }
    const expires = meta.expiresAfterMs;
    if (expires !== undefined && typeof expires !== 'function' && !isExpiryDelay(expires)) {
      throw new Error(messages.approvalExpiryInvalid(source, expires));
    }
    const { scopes, roles } = meta.approvers;
    const approvers = scopes.length > 0 || roles.length > 0 ? { scopes, roles } : undefined;
    if (meta.crossTenantApprovers && !approvers) {
      throw new Error(messages.crossTenantNeedsApprovers(source));
    }
    const rejectTo = this.decidedState(source, 'rejectTo', meta.rejectTo, engine, meta.waitIn);
    const expireTo = this.decidedState(source, 'expireTo', meta.expireTo, engine, meta.waitIn);
    return {
      when: meta.when,
      waitIn: meta.waitIn,
      approve: meta.approve.name,
      reject: meta.reject.name,
      approvers,
      crossTenantApprovers: meta.crossTenantApprovers,
      ...(rejectTo === undefined ? {} : { rejectTo }),
      ...(expireTo === undefined ? {} : { expireTo }),
      ...(expires === undefined ? {} : { expiresAfterMs: expires }),
    };
  }

  /**
   * A state `@McpApproval` sends a rejection or an expiry to (`which`): one the machine can be in
   * (a leaf it knows), not the waiting state, and without `after` transitions (a decision enters it
   * without an event, so it could not start their timers).
   */
  private decidedState(
    source: string,
    which: 'rejectTo' | 'expireTo',
    state: string | undefined,
    engine: MachineEngine,
    waitIn: string,
  ): string | undefined {
    if (state === undefined) {
      return undefined;
    }
    const why =
      typeof state !== 'string' || !engine.knows(state)
        ? 'is not a state the machine can be in (a leaf of it)'
        : state === waitIn
          ? 'is the waiting state itself'
          : engine.deadlines().some((deadline) => engine.matches(state, deadline.state))
            ? 'has `after` transitions, which a decision (no event) cannot start'
            : undefined;
    if (why) {
      throw new Error(messages.approvalDecidedState(source, which, String(state), why, engine.statePaths()));
    }
    return state;
  }

  /** `schema`, with the handle argument of a handle-keyed `machine` added when it is missing. */
  private withHandleArgument(schema: ZodObject, machine: string): ZodObject {
    const key = this.handleKey(machine);
    if (!key || key in schema.shape) {
      return schema;
    }
    return schema.extend({ [key]: z.string().describe(messages.handleArgumentDescription(machine)) });
  }

  /** The role of a handler without binding or start: it reads its class's instance when it can name it, else nothing gates it. */
  private unbound(workflow: string | undefined, inputSchema: ZodObject): McpHandlerRole {
    if (workflow === undefined) {
      return { kind: 'ungated' };
    }
    const key = this.handleKey(workflow);
    return !key || key in inputSchema.shape ? { kind: 'read', machine: workflow } : { kind: 'ungated' };
  }

  private resolveBinding(source: string, method: Method, classMachine?: McpMachineRef): McpStateRole | undefined {
    const meta = this.accessor.getBinding(method);
    if (!meta) {
      return undefined;
    }
    const decorator = meta.decorator ?? '@McpBindState';
    const machine = this.requireMachineId(source, meta.machine ? decorator : '@McpWorkflow', meta.machine ?? classMachine, decorator);
    const engine = this.machines.engine(machine);
    const paths = new Set(engine.statePaths());
    for (const state of meta.states) {
      if (!paths.has(state)) {
        throw new Error(messages.unknownState(source, decorator, machine, state, [...paths]));
      }
    }
    if (meta.states.length === 0) {
      throw new Error(messages.noStates(source, decorator));
    }
    this.assertEvent(source, decorator, machine, meta.transition);
    if (meta.transition !== undefined) {
      this.assertAcceptedFrom(source, decorator, machine, meta.states, meta.transition);
    }
    const transactional = this.transactional(source, decorator, meta.transactional);
    return meta.transition === undefined
      ? { kind: 'bound', machine, states: meta.states }
      : { kind: 'transition', machine, states: meta.states, event: meta.transition, transactional };
  }

  private resolveStart(source: string, method: Method, classMachine?: McpMachineRef): McpStartRole | undefined {
    const meta = this.accessor.getStart(method);
    if (!meta) {
      return undefined;
    }
    const decorator = meta.decorator ?? '@McpStartWorkflow';
    const machine = this.requireMachineId(source, meta.machine ? decorator : '@McpWorkflow', meta.machine ?? classMachine, decorator);
    const handleKey = this.handleKey(machine);
    if (!handleKey) {
      throw new Error(messages.startNeedsHandleKey(source, decorator, machine));
    }
    this.assertEvent(source, decorator, machine, meta.transition);
    if (meta.transition !== undefined) {
      this.assertAcceptedAtStart(source, decorator, machine, meta.transition);
    }
    const transactional = this.transactional(source, decorator, meta.transactional);
    return { kind: 'start', machine, handleKey, event: meta.transition, transactional };
  }

  private transactional(source: string, decorator: string, requested?: boolean): boolean {
    const transactional = requested ?? this.options.transactional;
    if (transactional && !this.store.supports.transactions) {
      throw new Error(messages.transactionalNeedsStore(source, decorator, this.store.name));
    }
    return transactional;
  }

  private assertEvent(source: string, decorator: string, machine: string, event?: string): void {
    const events = this.machines.engine(machine).eventNames();
    if (event !== undefined && !events.includes(event)) {
      throw new Error(messages.unknownEvent(source, decorator, machine, event, events));
    }
  }

  /** A bound event that none of the bound states accepts would list the tool and refuse every call. */
  private assertAcceptedFrom(source: string, decorator: string, machine: string, states: readonly string[], event: string): void {
    const engine = this.machines.engine(machine);
    if (states.some((state) => accepts(engine, state, event))) {
      return;
    }
    const accepting = engine.statePaths().filter((state) => accepts(engine, state, event));
    const outermost = accepting.filter((path) => !accepting.some((other) => path.startsWith(`${other}.`)));
    throw new Error(messages.eventNotAcceptedFrom(source, decorator, machine, event, states, outermost));
  }

  /** A start event that the initial state does not accept would store the instance and refuse every call of the tool. */
  private assertAcceptedAtStart(source: string, decorator: string, machine: string, event: string): void {
    const engine = this.machines.engine(machine);
    const initial = initialStatePath(engine, this.machines.machine(machine).config.initial);
    if (!accepts(engine, initial, event)) {
      throw new Error(messages.startEventNotAccepted(source, decorator, machine, event, initial, engine.eventsWhile(initial) ?? []));
    }
  }

  private requireMachineId(source: string, decorator: string, machine: McpMachineRef | undefined, user: string): string {
    const id = this.optionalMachineId(source, decorator, machine);
    if (!id) {
      throw new Error(messages.noMachine(source, user));
    }
    return id;
  }

  private optionalMachineId(source: string, decorator: string, machine?: McpMachineRef): string | undefined {
    if (machine === undefined) {
      return undefined;
    }
    const id = typeof machine === 'string' ? machine : machine.id;
    if (!this.machines.has(id)) {
      throw new Error(messages.unknownMachine(source, decorator, id, this.machines.ids()));
    }
    return id;
  }
}

/** Whether a transition for `event` can be taken while `state` is active, guards aside (or there are too many configurations to tell). */
function accepts(engine: MachineEngine, state: string, event: string): boolean {
  const descriptors = engine.eventsWhile(state);
  return descriptors === undefined || descriptors.some((descriptor) => matchesEventDescriptor(event, descriptor));
}

/**
 * The state path a new instance starts in (its leaf, after XState's initial transitions), or
 * the top-level `initial` state when the engine cannot tell without the start tool's input
 * (a context factory that reads it) or the initial state is a parallel one.
 */
function initialStatePath(engine: MachineEngine, topLevel: string): string {
  try {
    const { state } = engine.initial();
    return state.startsWith('{') ? topLevel : state;
  } catch {
    return topLevel;
  }
}
