import type { ExecutionContext } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { FsmMachineState } from '../machines/fsm-engine.interface.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import type { FsmInstanceScope } from '../stores/fsm-instance-key.js';
import type { FsmSnapshot } from '../stores/fsm-state-store.interface.js';
import type { FsmTransaction } from '../stores/transactional-fsm-state-store.interface.js';
import type { FsmRefusal } from './fsm-refusal.error.js';
import type { FsmInstanceLock } from './locks/fsm-instance-lock.interface.js';

/** Which stored instance a call acts on. */
export interface FsmInstanceRef {
  machine: string;
  /** Key in the store (see `formatInstanceKey`). */
  storeKey: string;
  scope: FsmInstanceScope;
  /** The handle argument (handle-keyed machines), or the minted handle of a start tool. */
  handle?: string;
}

/** What the connection a call came on knows about its caller. */
export interface FsmCaller {
  /** How the caller reached the server (`'modern'`: a 2026-07-28 request, which has no session). */
  readonly kind: string;
  /** Store key of this connection's instance of a session-keyed machine; `undefined` without session state. */
  sessionStoreKey(machine: string): string | undefined;
}

/** The mutable context handed to the handler as `@ToolContext()`. */
export type MutableToolContext = { -readonly [K in keyof McpToolContext]: McpToolContext[K] };

const callsByContext = new WeakMap<object, FsmCall>();
const runningCall = new AsyncLocalStorage<FsmCall>();

/**
 * One tool call as the gate sees it, from admission to the stored outcome. The gate fills
 * it; the call handler reads the outcome (refusal, stored state) after the handler ran.
 * Passed to the handler pipeline as its third argument.
 */
export class FsmCall {
  /** The instance the call acts on, once resolved and found to be the caller's. */
  instance?: FsmInstanceRef;
  /** The instance as the call was admitted on it. */
  snapshot?: FsmSnapshot;
  /** Where the bound transition leads, computed before the handler ran. */
  next?: FsmMachineState;
  /** Lock held between admission and commit (transition tools). */
  lock?: FsmInstanceLock;
  /** Transaction a transactional start tool creates its instance in. */
  transaction?: FsmTransaction;
  /** The state stored by this call's transition (or start); `null` when the call ended its instance. */
  storedState?: string | null;
  /**
   * The gate's refusal, kept here as well as thrown: a user's catch-all exception filter
   * may swallow the thrown one, but the call is refused all the same.
   */
  refusal?: FsmRefusal;
  /** Where the call stands against its cutoff: an abandoned call never commits, a committing one is never abandoned. */
  private stage: 'running' | 'committing' | 'abandoned' = 'running';

  constructor(
    readonly tool: McpHandlerDefinition,
    readonly caller: FsmCaller,
    readonly args: Record<string, unknown>,
    readonly context: MutableToolContext,
    /** Aborted when the server stops waiting for running calls (a graceful shutdown ran out of time); its reason is what the client is told. */
    private readonly cutoff?: AbortSignal,
  ) {
    callsByContext.set(context, this);
  }

  /** Whether the server stopped waiting for this call before its commit began: nothing of it is stored. */
  get abandoned(): boolean {
    return this.stage === 'abandoned';
  }

  /**
   * Runs `work` and settles as it does, unless the cutoff comes first while the call has not
   * begun to commit: then the call is abandoned and this rejects with the cutoff's reason at
   * once (`work` runs on and how it ends is ignored; an abandoned call starts no work).
   */
  unlessAbandoned<T>(work: () => Promise<T>): Promise<T> {
    const cutoff = this.cutoff;
    if (!cutoff) {
      return work();
    }
    if (this.abandon()) {
      return Promise.reject(cutoff.reason);
    }
    return new Promise<T>((resolve, reject) => {
      const abandon = () => {
        if (this.abandon()) reject(cutoff.reason);
      };
      cutoff.addEventListener('abort', abandon, { once: true });
      work()
        .then(resolve, reject)
        .finally(() => cutoff.removeEventListener('abort', abandon));
    });
  }

  /** Marks the start of the call's commit; throws the cutoff's reason instead when the call was abandoned. */
  beginCommit(): void {
    if (this.abandon()) {
      throw this.cutoff!.reason;
    }
    this.stage = 'committing';
  }

  /** Abandons the call if the cutoff passed before its commit began; whether it is abandoned. */
  private abandon(): boolean {
    if (this.stage === 'running' && this.cutoff?.aborted) {
      this.stage = 'abandoned';
    }
    return this.stage === 'abandoned';
  }

  /** The caller's principal: the auth client id, `undefined` for an anonymous caller. */
  get principal(): string | undefined {
    return this.context.authInfo?.clientId;
  }

  /** The state the call leaves its instance in: the stored one (`null`: ended), else the one it was admitted on. */
  get state(): string | null | undefined {
    return this.storedState !== undefined ? this.storedState : this.snapshot?.state;
  }

  /** Fields the result gets besides the handler's own: the minted handle of a start tool. */
  resultExtra(): Record<string, unknown> {
    return this.tool.start && this.instance ? { [this.tool.start.handleKey]: this.instance.handle } : {};
  }

  /** The call of a handler's execution context. */
  static from(context: ExecutionContext): FsmCall | undefined {
    const call = context.getArgByIndex(2);
    return call instanceof FsmCall ? call : undefined;
  }

  /** The call a tool context belongs to. */
  static of(context: object): FsmCall | undefined {
    return callsByContext.get(context);
  }

  /** Runs `work` (a tool's Nest pipeline) with `call` as the {@link FsmCall.current} call. */
  static run<T>(call: FsmCall, work: () => T): T {
    return runningCall.run(call, work);
  }

  /** The call whose pipeline is running, inside {@link FsmCall.run}. */
  static current(): FsmCall | undefined {
    return runningCall.getStore();
  }
}
