import type { ExecutionContext } from '@nestjs/common';
import type { McpGrants } from '../access/access-requirement.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { FsmCallRecord, type WorkflowCallOutcome } from './workflow-call-outcome.js';

export type { WorkflowInstanceRef } from './workflow-call-outcome.js';

/** What the connection a call came on knows about its caller. */
export interface WorkflowCaller {
  /** How the caller reached the server (`'modern'`: a 2026-07-28 request, which has no session). */
  readonly kind: string;
  /** Store key of this connection's instance of a session-keyed machine; `undefined` without session state. */
  sessionStoreKey(machine: string): string | undefined;
  /** What the caller holds (scopes, roles): the allowed tools it is told of leave out what it may not use. @default none */
  readonly grants?: McpGrants;
}

/** The mutable context handed to the handler as `@McpContext()`. */
export type MutableToolContext = { -readonly [K in keyof McpToolContext]: McpToolContext[K] };

/** The gate's writable record of `call`: for the gate alone, never exported from the package. */
export let recordOf: (call: WorkflowCall) => FsmCallRecord;

const callsByContext = new WeakMap<object, WorkflowCall>();

/**
 * One tool, prompt or resource call as the gate sees it: what the caller sent, and the
 * gate's {@link WorkflowCallOutcome} once the pipeline ran. Passed to the handler pipeline as its
 * third argument.
 */
export class WorkflowCall {
  readonly #record = new FsmCallRecord();
  /** Where the call stands against its cutoff: an abandoned call never commits, a committing one is never abandoned. */
  private stage: 'running' | 'committing' | 'abandoned' = 'running';

  constructor(
    readonly tool: McpHandlerDefinition,
    readonly caller: WorkflowCaller,
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

  /** What the gate decided about the call (read-only; the gate writes it). */
  get outcome(): WorkflowCallOutcome {
    return this.#record;
  }

  /** Fields the result gets besides the handler's own: the minted handle of a start tool. */
  resultExtra(): Record<string, unknown> {
    const { instance } = this.#record;
    return this.tool.start && instance ? { [this.tool.start.handleKey]: instance.handle } : {};
  }

  /** The call of a handler's execution context. */
  static from(context: ExecutionContext): WorkflowCall | undefined {
    const call = context.getArgByIndex(2);
    return call instanceof WorkflowCall ? call : undefined;
  }

  /** The call a tool context belongs to. */
  static of(context: object): WorkflowCall | undefined {
    return callsByContext.get(context);
  }

  static {
    recordOf = (call) => call.#record;
  }
}
