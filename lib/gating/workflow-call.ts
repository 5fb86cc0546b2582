import type { ExecutionContext } from '@nestjs/common';
import type { McpGrants } from '../access/access-requirement.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { McpToolContext } from '../decorators/mcp-tool-context.interface.js';
import { toStateValue } from '../machines/state-value.js';
import type { GateVisit } from './gate-visit.js';
import type { WorkflowCutoff } from './workflow-cutoff.js';
import type { WorkflowHold, WorkflowSighting } from './workflow-step-values.js';
import type { WorkflowTaskRef } from './workflow-task.js';

/** How a caller reached the server: a 2025-era session (stateful or stateless HTTP, stdio), or one 2026-07-28 request (`'modern'`, which has no session). */
export type WorkflowCallerKind = 'stateful' | 'stateless' | 'stdio' | 'modern';

/** The timer a deadline's call fires: its id, the token of the scheduler's claim on it, and the owner and team of its instance (whom it acts for). */
export interface WorkflowDeadlineFiring {
  readonly id: string;
  readonly token: string;
  readonly owner?: string;
  readonly team?: string;
}

/**
 * The sender of an outside event (`McpWorkflowService.send`): the owner and team of the instance
 * it acts on (the app vouches for it, as for a deadline), and the idempotency key its commit
 * records with the state (the event is applied once per key).
 */
export interface WorkflowOutsideSender {
  readonly owner?: string;
  readonly team?: string;
  readonly idempotencyKey?: string;
}

/**
 * The idempotency key a call is made with (`_meta["nestjs-mcp-fsm/idempotency-key"]`, a task's
 * id, or the app's own), and whose key it is: the call commits at most once per requester and
 * key, and a repeat answers the first call's result (see `WorkflowReceipts`).
 */
export interface WorkflowIdempotency {
  /** The key (1 to 255 characters, checked where it entered). */
  readonly key: string;
  /** Whose key it is: the caller's principal, else its session (see `taskRequesterOf`), or `actor:<actor>` for the app's own code. */
  readonly requester: string;
}

/**
 * Which waiting request a decision call decides (`@McpApproval`'s approve and reject tools): the
 * request it names by id, or, for the withdrawal of a task's own request (`tasks/cancel`), the
 * task the request runs as. The gate decides only the request waiting now that matches it.
 */
export interface WorkflowDecisionTarget {
  readonly requestId?: string;
  readonly taskId?: string;
}

/** What the connection a call came on knows about its caller. */
export interface WorkflowCaller {
  /** How the caller reached the server. */
  readonly kind: WorkflowCallerKind;
  /** Store key of this connection's instance of a session-keyed machine; `undefined` without session state. */
  sessionStoreKey(machine: string): string | undefined;
  /** What the caller holds (scopes, roles): the allowed tools it is told of leave out what it may not use. @default none */
  readonly grants?: McpGrants;
  /** Set when the caller is a deadline (the scheduler firing a durable timer), not a connection: history names it `deadline:<timer id>`. */
  readonly deadline?: WorkflowDeadlineFiring;
  /** Set when the caller is the app's own code sending an outside event (a webhook, a queue consumer), not a connection; its principal is the actor. */
  readonly outside?: WorkflowOutsideSender;
  /**
   * `'app'` when the app's own code vouches for the caller (`McpWorkflowService.approve`/`reject`,
   * the withdrawal of a cancelled task's request): a decision then reaches the instance whoever
   * owns it, and the approvers' grants are not asked. The person who asked still cannot approve.
   */
  readonly authority?: 'app';
}

/** The mutable context handed to the handler as `@McpContext()`, as whoever makes a request builds it. */
export type MutableToolContext = { -readonly [K in keyof McpToolContext]: McpToolContext[K] };

/** What the gate's steps found of a call, shown to its handler in its `@McpContext()`. */
export type WorkflowCallShown = Partial<
  Pick<MutableToolContext, 'machine' | 'handle' | 'state' | 'workflowContext' | 'manager' | 'confirmation' | 'approval'>
>;

/** What a handler's context shows of an instance as a step of the gate found it. */
export function sightedIn({ instance, snapshot }: WorkflowSighting): WorkflowCallShown {
  return { machine: instance.machine, handle: instance.handle, state: toStateValue(snapshot.state), workflowContext: snapshot.context };
}

/** What a handler's context shows of what its call holds: the transaction its writes go through, when there is one. */
export function heldIn(hold: WorkflowHold): WorkflowCallShown {
  if (hold.kind === 'lock') return { manager: hold.lock.manager };
  return hold.kind === 'transaction' ? { manager: hold.transaction.manager } : {};
}

/** Where a handler's context keeps the call it belongs to (not enumerable: a copy of the context belongs to no call). */
const CALL_OF_CONTEXT = Symbol('nestjs-mcp-fsm:call');

/**
 * One tool, prompt or resource call as the gate runs it: the handler it targets (whose role
 * names the machine and the event), the caller, what the caller sent and the context its
 * handler gets. What the gate decides about it is never written here: `WorkflowGate.run`
 * answers it as a `WorkflowCallOutcome`; what the gate's steps found is shown in its context
 * ({@link WorkflowCall.show}, the context's one writer). Passed to the handler pipeline as its
 * third argument, carrying the gate's visit of it.
 */
export class WorkflowCall {
  readonly tool: McpHandlerDefinition;
  readonly caller: WorkflowCaller;
  readonly args: Record<string, unknown>;
  /** The context its handler gets as `@McpContext()`: the request's, with the idempotency key and what the gate found. */
  readonly context: McpToolContext;
  /** The MCP task the call runs as (a task-augmented `tools/call`); `undefined` for an in-band call. */
  readonly task?: WorkflowTaskRef;
  /** The waiting request a decision call decides (`@McpApproval`); `undefined` for any other call. */
  readonly decides?: WorkflowDecisionTarget;
  /** The idempotency key the call is made with; `undefined` for a call without one. */
  readonly idempotency?: WorkflowIdempotency;
  /** Aborted when the server stops waiting for running calls; its reason is what the client is told. */
  private readonly cutoff?: WorkflowCutoff;
  /** Where the call stands against its cutoff: an abandoned call never commits, a committing one is never abandoned. */
  private stage: 'running' | 'committing' | 'abandoned' = 'running';

  constructor(
    request: Omit<WorkflowRequest, 'transport'>,
    /** The gate's visit of the call, made with it by `WorkflowGate.run`. */
    readonly visit: GateVisit,
  ) {
    this.tool = request.target;
    this.caller = request.caller;
    this.args = request.args;
    this.task = request.task;
    this.decides = request.decides;
    this.idempotency = request.idempotency;
    this.cutoff = request.cutoff;
    // What its handler reads as `ctx.idempotencyKey`.
    const context = request.idempotency ? { ...request.context, idempotencyKey: request.idempotency.key } : { ...request.context };
    this.context = Object.defineProperty(context, CALL_OF_CONTEXT, { value: this });
  }

  /** Shows what the gate's steps found in the handler's context: the one place the context is written after the call is made. */
  show(found: WorkflowCallShown): void {
    Object.assign(this.context, found);
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
      const stop = cutoff.whenReached(() => {
        if (this.abandon()) reject(cutoff.reason);
      });
      work().then(
        (value) => {
          stop();
          resolve(value);
        },
        (error: unknown) => {
          stop();
          reject(error);
        },
      );
    });
  }

  /** Marks the start of the call's commit; throws the cutoff's reason instead when the call was abandoned. */
  beginCommit(): void {
    if (this.abandon()) {
      throw this.cutoff?.reason;
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

  /** The call of a handler's execution context. */
  static from(context: ExecutionContext): WorkflowCall | undefined {
    const call = context.getArgByIndex(2);
    return call instanceof WorkflowCall ? call : undefined;
  }

  /** The call a tool context belongs to: the context of a handler holds its call. */
  static of(context: object): WorkflowCall | undefined {
    const call = (context as { [CALL_OF_CONTEXT]?: unknown })[CALL_OF_CONTEXT];
    return call instanceof WorkflowCall ? call : undefined;
  }
}

/**
 * What enters the gate: one call of a handler (the target, whose role names the machine, the
 * states and the event), by a caller, with its arguments and the context its handler gets; the
 * handler is the body the gate runs inside the call's claim.
 */
export interface WorkflowRequest {
  readonly target: McpHandlerDefinition;
  readonly caller: WorkflowCaller;
  readonly args: Record<string, unknown>;
  readonly context: MutableToolContext;
  /** The transport's request and response, as the handler's pipeline gets them before the call (`{ headers: {} }` and `undefined` on stdio). */
  readonly transport: readonly [request: unknown, response: unknown];
  /** Aborted when the server stops waiting for running calls (see `WorkflowCall.unlessAbandoned`). */
  readonly cutoff?: WorkflowCutoff;
  /** The MCP task the call runs as (a task-augmented `tools/call`): its result completes the task; `undefined` for an in-band call. */
  readonly task?: WorkflowTaskRef;
  /** The waiting request a decision call decides, when not named by its `requestId` argument (a task's withdrawal names its task). */
  readonly decides?: WorkflowDecisionTarget;
  /** The idempotency key the call is made with (its handler reads it as `ctx.idempotencyKey`); `undefined` for a call without one. */
  readonly idempotency?: WorkflowIdempotency;
}
