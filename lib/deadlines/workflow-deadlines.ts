import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { z } from 'zod';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import type { McpDeadlineMetadata } from '../decorators/mcp-deadline.decorator.js';
import type { WorkflowCall } from '../gating/workflow-call.js';
import { WorkflowGate } from '../gating/workflow-gate.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { MCP_DEADLINE_METADATA } from '../mcp.constants.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowDueTimer } from '../stores/workflow-timer.interface.js';
import { EXPIRED_REASON, expiringTool } from '../gating/approval-expiry.js';
import { REJECT_REASON_KEY } from '../gating/workflow-approvals.js';
import * as messages from './deadlines.messages.js';

/** What runs with a state's deadlines: the `@McpDeadline` method, bound to its provider. */
interface DeadlineEffect {
  readonly source: string;
  readonly run: (ctx: McpToolContext) => unknown;
}

/**
 * The transitions no tool fires, as the gate runs them: one handler definition per `after`
 * transition of every machine (a transition role bound to its state, sending the timer's
 * event), never listed, whose handler is the state's `@McpDeadline` method when the app
 * declares one. On a store with transactions the claim is a row lock in a transaction the
 * effect joins (`ctx.manager`), so its writes commit with the state change. A waiting call's
 * expiry timer (`@McpApproval`'s `expiresAfterMs`) runs as its reject tool, reason `"expired"`.
 */
@Injectable()
export class WorkflowDeadlines implements OnModuleInit {
  private readonly definitions = new Map<string, McpHandlerDefinition>();

  constructor(
    private readonly machines: McpMachineRegistry,
    private readonly store: FsmStoreAdapter,
    private readonly gate: WorkflowGate,
    private readonly tools: McpToolRegistry,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** Finds the `@McpDeadline` methods and builds the definitions; a method naming an unknown machine or state fails the bootstrap. */
  onModuleInit(): void {
    const effects = this.effects();
    for (const machine of this.machines.ids()) {
      for (const { state, event } of this.machines.engine(machine).deadlines()) {
        this.definitions.set(`${machine}\u0000${event}`, this.define(machine, state, event, effects.get(`${machine}\u0000${state}`)));
      }
    }
  }

  /** The machines that have `after` transitions, or waiting calls that expire (`@McpApproval`'s `expiresAfterMs`). */
  machinesWithDeadlines(): string[] {
    const expiring = new Set(
      this.tools.all().flatMap(({ role }) => (role.kind === 'transition' && role.decision?.expiryTimer ? [role.machine] : [])),
    );
    return this.machines.ids().filter((machine) => expiring.has(machine) || this.machines.engine(machine).deadlines().length > 0);
  }

  /** The definition a timer of `machine` that sends `event` runs as; `undefined` when the machine (as deployed now) has no such transition. */
  definition(machine: string, event: string): McpHandlerDefinition | undefined {
    return this.definitions.get(`${machine}\u0000${event}`);
  }

  /**
   * What a due timer runs as: its `after` transition's definition, or for a waiting call's expiry
   * the reject tool that still expires it, with the arguments beyond the handle (the reason);
   * `undefined` when the app (as deployed now) has neither.
   */
  firingOf(
    timer: Pick<WorkflowDueTimer, 'machine' | 'id' | 'event'>,
  ): { target: McpHandlerDefinition; args: Record<string, unknown> } | undefined {
    const tool = expiringTool(timer.id);
    if (tool === undefined) {
      const target = this.definition(timer.machine, timer.event);
      return target && { target, args: {} };
    }
    const reject = this.tools.get(timer.event);
    const role = reject?.role;
    const expires =
      role?.kind === 'transition' && role.machine === timer.machine && role.decision?.of === tool && role.decision.expiryTimer === timer.id;
    return expires ? { target: reject!, args: { [REJECT_REASON_KEY]: EXPIRED_REASON } } : undefined;
  }

  private define(machine: string, state: string, event: string, effect: DeadlineEffect | undefined): McpHandlerDefinition {
    const handleKey = this.machines.machine(machine).stateHandleKey;
    return {
      kind: 'tool',
      name: event,
      inputSchema: handleKey ? z.object({ [handleKey]: z.string() }) : z.object({}),
      workflow: machine,
      role: { kind: 'transition', machine, states: [state], event, transactional: this.store.supports.transactions },
      source: effect?.source ?? `after (${machine}.${state})`,
      invoke: ([, , call]) => this.gate.handle(call as WorkflowCall, () => effect?.run((call as WorkflowCall).context)),
    };
  }

  private effects(): Map<string, DeadlineEffect> {
    const effects = new Map<string, DeadlineEffect>();
    for (const wrapper of this.discovery.getProviders()) {
      const { instance, metatype } = wrapper as { instance?: Record<string, unknown>; metatype?: Function };
      if (!instance || !metatype?.prototype || wrapper.isAlias) continue;
      for (const methodName of this.scanner.getAllMethodNames(metatype.prototype)) {
        const method = metatype.prototype[methodName] as (...args: unknown[]) => unknown;
        const metadata = Reflect.getMetadata(MCP_DEADLINE_METADATA, method) as McpDeadlineMetadata | undefined;
        if (!metadata) continue;
        const source = `${metatype.name}.${methodName}`;
        const machine = typeof metadata.machine === 'string' ? metadata.machine : metadata.machine.id;
        this.check(source, machine, metadata.state);
        const key = `${machine}\u0000${metadata.state}`;
        const first = effects.get(key);
        if (first) throw new Error(messages.deadlineDeclaredTwice(machine, metadata.state, first.source, source));
        effects.set(key, { source, run: (ctx) => method.call(instance, ctx) });
      }
    }
    return effects;
  }

  private check(source: string, machine: string, state: string): void {
    if (!this.machines.ids().includes(machine)) throw new Error(messages.deadlineUnknownMachine(source, machine));
    const states = [
      ...new Set(
        this.machines
          .engine(machine)
          .deadlines()
          .map((deadline) => deadline.state),
      ),
    ];
    if (!states.includes(state)) throw new Error(messages.deadlineUnknownState(source, machine, state, states));
  }
}
