import { type CallHandler, type ExecutionContext, Inject, Injectable, Logger, type NestInterceptor } from '@nestjs/common';
import { mergeMap, type Observable } from 'rxjs';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import * as messages from '../mcp.messages.js';
import { FsmTransitionBus } from '../server/fsm-transition.bus.js';
import { assertToolOutput } from '../server/tool-output.validator.js';
import { isAtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import { FsmStateStore, type FsmSnapshot } from '../stores/fsm-state-store.interface.js';
import type { FsmTransitionRecord } from '../stores/fsm-transition-record.interface.js';
import { FsmCall } from './fsm-call.js';
import { FsmRefusal } from './fsm-refusal.error.js';
import { FsmRefusals } from './fsm-refusals.js';
import { DEFAULT_LEASE_MS } from './fsm-state.guard.js';

/** Whether a handler's result is a tool error (`isError: true`), which fires no transition. */
export function isToolErrorResult(result: unknown): boolean {
  return typeof result === 'object' && result !== null && (result as { isError?: unknown }).isError === true;
}

/**
 * Fires the transition after a successful call: stores the new state (conditional on the
 * claim) or creates the instance of a start tool, then publishes it so sessions are told
 * their menu changed. A handler that throws or returns `isError` fires nothing.
 * Subclass it and override the protected methods to customise.
 */
@Injectable()
export class FsmTransitionInterceptor implements NestInterceptor {
  protected readonly logger = new Logger(FsmTransitionInterceptor.name);

  constructor(
    @Inject(MCP_MODULE_OPTIONS) protected readonly options: McpModuleOptions,
    @Inject(FsmStateStore) protected readonly store: FsmStateStore,
    protected readonly machines: McpMachineRegistry,
    protected readonly refusals: FsmRefusals,
    protected readonly bus: FsmTransitionBus,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const call = FsmCall.from(context);
    return next.handle().pipe(
      mergeMap(async (result) => {
        if (call && !isToolErrorResult(result)) {
          assertToolOutput(call.tool, result, call.resultExtra());
          await this.complete(call);
        }
        return result;
      }),
    );
  }

  /** Stores what the successful call changed; failures become refusals the model can read. */
  protected async complete(call: FsmCall): Promise<void> {
    const machine = call.instance!.machine;
    try {
      if (call.tool.start) {
        await this.completeStart(call);
      } else if (call.lock) {
        await this.completeTransition(call);
      }
    } catch (error) {
      call.refusal = error instanceof FsmRefusal ? error : this.refusals.stateUnavailable(call, machine, error, true);
      throw call.refusal;
    }
  }

  /** Creates the started instance in its initial state, moved by the start transition if any. */
  protected async completeStart(call: FsmCall): Promise<void> {
    const { machine, storeKey } = call.instance!;
    const event = call.tool.start!.transition;
    const initial = this.machines.engine(machine).initialState();
    const state = event ? (this.machines.engine(machine).transition(initial, event, call.args) ?? initial) : initial;
    const snapshot: FsmSnapshot = { state, updatedAt: new Date().toISOString(), owner: call.owner };
    const record = this.record(call, null, state, event ?? null, snapshot.updatedAt);
    if (call.transaction) {
      await call.transaction.commit(storeKey, { snapshot, record }, { insert: true });
      call.transaction = undefined;
    } else if (isAtomicFsmStateStore(this.store)) {
      await this.store.create(storeKey, snapshot, record);
    } else {
      await this.store.save(storeKey, snapshot);
    }
    this.stored(call, state);
  }

  /** Sends the bound event from the claimed state and commits it under the claim. */
  protected async completeTransition(call: FsmCall): Promise<void> {
    const lock = call.lock!;
    const { machine } = call.instance!;
    const event = call.tool.binding!.transition!;
    const state = this.machines.engine(machine).transition(lock.state, event, call.args);
    if (state === undefined) {
      this.logger.warn(messages.transitionNotAccepted(call.tool.name, machine, lock.state, event));
      return;
    }
    const updatedAt = new Date().toISOString();
    const record = this.record(call, lock.state, state, event, updatedAt);
    const committed = await lock.commit({ snapshot: { state, updatedAt, owner: lock.owner }, record });
    call.lock = undefined;
    if (!committed) {
      throw this.refusals.leaseExpired(call, machine, lock.state, this.options.leaseMs ?? DEFAULT_LEASE_MS);
    }
    this.stored(call, state);
  }

  private stored(call: FsmCall, state: string): void {
    const { machine, storeKey } = call.instance!;
    call.nextState = state;
    this.bus.publish({ machine, storeKey, state, origin: call.session });
  }

  private record(call: FsmCall, from: string | null, to: string, event: string | null, at: string): FsmTransitionRecord {
    const { machine, storeKey } = call.instance!;
    return { machine, handle: storeKey, from, to, event, tool: call.tool.name, principal: call.principal, at };
  }
}
