import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import { isAtomicFsmStateStore, type FsmClaimRequest } from '../stores/atomic-fsm-state-store.interface.js';
import { FsmStateStore, type FsmSnapshot } from '../stores/fsm-state-store.interface.js';
import { matchesAllowedState } from '../stores/fsm-state-match.js';
import {
  isTransactionalFsmStateStore,
  type TransactionalFsmStateStore,
} from '../stores/transactional-fsm-state-store.interface.js';
import * as messages from '../mcp.messages.js';
import { FsmCall, type FsmInstanceRef } from './fsm-call.js';
import { judgeSnapshot } from './locks/snapshot-verdict.js';
import { instanceStoreKey, isWellFormedHandle, mintHandle } from './fsm-handle.js';
import { FsmRefusal } from './fsm-refusal.error.js';
import { FsmRefusals } from './fsm-refusals.js';
import type { FsmLocker, FsmLockOutcome } from './locks/fsm-instance-lock.interface.js';
import { LeaseLocker } from './locks/lease.locker.js';
import { MutexLocker } from './locks/mutex.locker.js';
import { TransactionLocker } from './locks/transaction.locker.js';

/** Default lease of a claimed instance. */
export const DEFAULT_LEASE_MS = 15_000;

/**
 * Admits a gated call: resolves its instance, and for transition tools claims it (lease,
 * row lock or in-process mutex, by what the store supports). Refuses with FORBIDDEN, BUSY,
 * UNKNOWN_HANDLE, NO_SESSION or STATE_UNAVAILABLE, so the handler never runs out of order.
 * Runs after the method's own guards. Subclass it and override the protected methods to customise.
 */
@Injectable()
export class FsmStateGuard implements CanActivate {
  protected readonly locker: FsmLocker;
  protected readonly transactionLocker?: FsmLocker;
  /** The store, when it supports transactional mode (the explorer refuses transactional tools otherwise). */
  protected readonly transactionalStore?: TransactionalFsmStateStore;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) protected readonly options: McpModuleOptions,
    @Inject(FsmStateStore) protected readonly store: FsmStateStore,
    protected readonly machines: McpMachineRegistry,
    protected readonly refusals: FsmRefusals,
  ) {
    this.locker = isAtomicFsmStateStore(store) ? new LeaseLocker(store) : new MutexLocker(store);
    if (isTransactionalFsmStateStore(store)) {
      this.transactionalStore = store;
      this.transactionLocker = new TransactionLocker(store);
    }
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const call = FsmCall.from(context);
    if (!call || (!call.tool.binding && !call.tool.start)) {
      return true;
    }
    const machine = (call.tool.binding ?? call.tool.start)!.machine;
    try {
      await (call.tool.start ? this.admitStart(call) : this.admitBound(call));
    } catch (error) {
      call.refusal = error instanceof FsmRefusal ? error : this.refusals.stateUnavailable(call, machine, error, false);
      throw call.refusal;
    }
    return true;
  }

  /**
   * Mints the handle of a start tool and makes sure the store is there before the handler
   * runs (fail closed): in transactional mode by opening the transaction it writes in,
   * otherwise by reading the new handle (which must not exist).
   */
  protected async admitStart(call: FsmCall): Promise<void> {
    const start = call.tool.start!;
    const handle = mintHandle();
    const storeKey = instanceStoreKey(start.machine, handle);
    if (start.transactional) {
      call.transaction = await this.transactionalStore!.beginTransaction();
      call.context.manager = call.transaction.manager;
    } else if (await this.store.load(storeKey)) {
      throw new Error(messages.handleCollision(storeKey));
    }
    this.enter(call, { machine: start.machine, storeKey, handle, keyedBy: 'handle' });
    call.context.state = this.machines.engine(start.machine).initialState();
  }

  /** Checks (and, for transition tools, claims) the instance of a bound tool. */
  protected async admitBound(call: FsmCall): Promise<void> {
    const binding = call.tool.binding!;
    const instance = this.resolveInstance(call);
    const request = this.claimRequest(call, instance);
    if (!binding.transition) {
      this.admitOutcome(call, instance, this.readOutcome(request, await this.store.load(instance.storeKey)));
      return;
    }
    const locker = binding.transactional ? this.transactionLocker! : this.locker;
    this.admitOutcome(call, instance, await locker.acquire(request));
  }

  /** Finds which instance the call acts on, from its handle argument or its session. */
  protected resolveInstance(call: FsmCall): FsmInstanceRef {
    const machine = call.tool.binding!.machine;
    const key = this.machines.machine(machine).stateHandleKey;
    if (key) {
      const handle = call.args[key];
      if (!isWellFormedHandle(handle)) {
        throw this.refusals.unknownHandle(call, machine, key, handle);
      }
      return { machine, storeKey: instanceStoreKey(machine, handle), handle, keyedBy: 'handle' };
    }
    const storeKey = call.session.sessionStoreKey(machine);
    if (!storeKey) {
      throw this.refusals.noSession(call, machine);
    }
    return { machine, storeKey, keyedBy: 'session' };
  }

  /** The claim for a bound call: session-keyed instances start implicitly in the initial state. */
  protected claimRequest(call: FsmCall, instance: FsmInstanceRef): FsmClaimRequest {
    const allowedStates = call.tool.binding!.states;
    const initial = this.machines.engine(instance.machine).initialState();
    const startsHere = instance.keyedBy === 'session' && matchesAllowedState(initial, allowedStates);
    return {
      handle: instance.storeKey,
      allowedStates,
      token: randomUUID(),
      leaseMs: this.options.leaseMs ?? DEFAULT_LEASE_MS,
      owner: instance.keyedBy === 'handle' ? call.owner : undefined,
      createWith: startsHere ? { state: initial, updatedAt: new Date().toISOString() } : undefined,
    };
  }

  private readOutcome(request: FsmClaimRequest, snapshot: FsmSnapshot | undefined): FsmLockOutcome {
    const verdict = judgeSnapshot(request, snapshot);
    if (verdict.status !== 'allowed') {
      return verdict;
    }
    const { state } = verdict.snapshot;
    return { status: 'claimed', lock: { state, commit: async () => true, release: async () => {} } };
  }

  private admitOutcome(call: FsmCall, instance: FsmInstanceRef, outcome: FsmLockOutcome): void {
    const key = this.machines.machine(instance.machine).stateHandleKey ?? '';
    switch (outcome.status) {
      case 'unknown':
        if (instance.keyedBy === 'session') {
          this.enter(call, instance);
          throw this.refusals.forbidden(call, instance.machine, this.machines.engine(instance.machine).initialState());
        }
        throw this.refusals.unknownHandle(call, instance.machine, key, instance.handle);
      case 'forbidden':
        this.enter(call, instance);
        throw this.refusals.forbidden(call, instance.machine, outcome.state);
      case 'busy':
        this.enter(call, instance);
        throw this.refusals.busy(call, instance.machine, outcome.state);
      case 'claimed':
        this.enter(call, instance);
        call.session.knownStates.set(instance.storeKey, outcome.lock.state);
        call.context.state = outcome.lock.state;
        call.context.manager = outcome.lock.manager;
        if (call.tool.binding!.transition) {
          call.lock = outcome.lock;
        }
    }
  }

  private enter(call: FsmCall, instance: FsmInstanceRef): void {
    call.instance = instance;
    call.context.machine = instance.machine;
    call.context.handle = instance.handle;
    if (instance.keyedBy === 'handle') {
      call.session.handles.add(instance.storeKey);
    }
  }
}
