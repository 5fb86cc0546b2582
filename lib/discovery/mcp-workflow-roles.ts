import { Inject, Injectable } from '@nestjs/common';
import { z, type ZodObject } from 'zod';
import type { McpMachineRef } from '../decorators/machine-ref.type.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import { WORKFLOW_CONFIRMATION_OPTIONS, type WorkflowConfirmationOptions } from '../gating/confirmation-options.interface.js';
import type { MachineEngine } from '../machines/machine-engine.interface.js';
import { matchesEventDescriptor } from '../machines/xstate-transition-names.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { McpHandlerKind, McpToolBinding, McpToolConfirmation, McpToolStart } from '../registry/mcp-tool-definition.interface.js';
import { confirmationQuestion } from './confirmation-question.js';
import * as messages from './discovery.messages.js';
import { McpMetadataAccessor } from './mcp-metadata.accessor.js';

type Method = (...args: unknown[]) => unknown;

/** A handler's part in a workflow, from `@McpBindState`, `@McpStartWorkflow` and its class's `@McpWorkflow`. */
interface McpWorkflowRole {
  workflow?: string;
  binding?: McpToolBinding;
  start?: McpToolStart;
  confirmation?: McpToolConfirmation;
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

  /** The method's role; prompts and resources may be bound to states, but neither start an instance nor fire a transition. */
  resolve(kind: McpHandlerKind, source: string, metatype: Function, method: Method): McpWorkflowRole {
    const classMachine = this.accessor.getWorkflow(metatype);
    const binding = this.resolveBinding(source, method, classMachine);
    const start = this.resolveStart(source, method, classMachine);
    if (binding && start) {
      throw new Error(messages.bindAndStartTogether(source));
    }
    if (kind !== 'tool' && (start || binding?.transition)) {
      throw new Error(messages.onlyToolsMove(source, DECORATOR[kind]));
    }
    const workflow = binding?.machine ?? start?.machine ?? this.optionalMachineId(source, '@McpWorkflow', classMachine);
    const confirmation = this.resolveConfirmation(source, method, binding);
    return { workflow, binding, start, ...(confirmation ? { confirmation } : {}) };
  }

  /** `@McpConfirm` of a tool bound to states with an event, of the binding's machine. */
  private resolveConfirmation(source: string, method: Method, binding: McpToolBinding | undefined): McpToolConfirmation | undefined {
    const meta = this.accessor.getConfirmation(method);
    if (!meta) {
      return undefined;
    }
    if (!binding?.transition) {
      throw new Error(messages.confirmNeedsTransition(source));
    }
    const machine = this.requireMachineId(source, '@McpConfirm', meta.machine, '@McpConfirm');
    if (machine !== binding.machine) {
      throw new Error(messages.confirmOtherMachine(source, machine, binding.machine));
    }
    return confirmationQuestion(source, meta, this.confirmations.timeoutMs);
  }

  /** The machine's handle argument key, when `machine` is handle-keyed. */
  handleKey(machine: string | undefined): string | undefined {
    return machine === undefined ? undefined : this.machines.machine(machine).stateHandleKey;
  }

  /** `schema`, with the handle argument of a handle-keyed binding added when it is missing. */
  withHandleArgument(schema: ZodObject, binding?: McpToolBinding): ZodObject {
    const key = this.handleKey(binding?.machine);
    if (!binding || !key || key in schema.shape) {
      return schema;
    }
    return schema.extend({ [key]: z.string().describe(messages.handleArgumentDescription(binding.machine)) });
  }

  /**
   * The machine an unbound handler of a workflow class reads: a session-keyed machine always
   * (its session's instance), a handle-keyed one when the handler takes the handle argument.
   */
  readsMachine(role: McpWorkflowRole, inputSchema: ZodObject): string | undefined {
    if (role.binding || role.start || !role.workflow) {
      return undefined;
    }
    const key = this.handleKey(role.workflow);
    return !key || key in inputSchema.shape ? role.workflow : undefined;
  }

  private resolveBinding(source: string, method: Method, classMachine?: McpMachineRef): McpToolBinding | undefined {
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
    return {
      machine,
      states: meta.states,
      transition: meta.transition,
      transactional: this.transactional(source, decorator, meta.transactional),
    };
  }

  private resolveStart(source: string, method: Method, classMachine?: McpMachineRef): McpToolStart | undefined {
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
    return { machine, handleKey, transition: meta.transition, transactional };
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
