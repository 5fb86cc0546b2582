import { Injectable } from '@nestjs/common';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import { authOf, mayAccess } from './workflow-access.js';
import { WorkflowCall } from './workflow-call.js';
import { WorkflowGate } from './workflow-gate.js';
import * as messages from './gating.messages.js';

/** Which instance to act on; by default the one of the current call. */
export interface McpWorkflowRef {
  /** Machine id. @default the call's machine (`ctx.machine`) */
  machine?: string;
  /** Handle of a handle-keyed machine's instance. @default the call's handle (`ctx.handle`) */
  handle?: string;
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
  constructor(
    private readonly store: FsmStoreAdapter,
    private readonly machines: McpMachineRegistry,
    private readonly tools: McpToolRegistry,
    private readonly gate: WorkflowGate,
  ) {}

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
    };
  }

  /** The instance's transitions, oldest first (empty when the store keeps no history, or the caller may not see it). */
  async history(ctx: McpWorkflowCallContext, ref: McpWorkflowRef = {}): Promise<WorkflowTransitionRecord[]> {
    const found = await this.find(ctx, ref);
    return found ? this.store.history(found.storeKey) : [];
  }

  /**
   * Deletes the instance (its history stays) and tells the sessions that follow it; `false`
   * when there is none the caller may see. A handle-keyed instance's handle is unknown after it.
   */
  async end(ctx: McpWorkflowCallContext, ref: McpWorkflowRef = {}): Promise<boolean> {
    const found = await this.find(ctx, ref);
    if (!found || !found.stored) {
      return false;
    }
    if (!this.store.supports.delete) {
      throw new Error(messages.endNeedsDelete(this.store.name));
    }
    await this.store.delete([found.storeKey]);
    this.gate.ended(WorkflowCall.of(ctx)!, found);
    return true;
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
