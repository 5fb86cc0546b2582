import type { ExecutionContext } from '@nestjs/common';
import type { McpToolDefinition } from '../discovery/mcp-tool-definition.interface.js';
import type { McpToolContext } from '../interfaces/mcp-tool-context.interface.js';
import type { McpSession } from '../server/mcp-session.js';
import type { FsmTransaction } from '../stores/transactional-fsm-state-store.interface.js';
import type { FsmRefusal } from './fsm-refusal.error.js';
import type { FsmInstanceLock } from './locks/fsm-instance-lock.interface.js';

/** Which stored instance a call acts on. */
export interface FsmInstanceRef {
  machine: string;
  /** Key in the store: `"<machine>:<handle>"`, `"<machine>:session:<id>"` or `"<machine>:attachment:<id>"`. */
  storeKey: string;
  /** The handle argument (handle-keyed machines), or the minted handle of a start tool. */
  handle?: string;
  /** How the instance was found. */
  keyedBy: 'handle' | 'session';
}

/** The mutable context handed to the handler as `@ToolContext()`. */
export type MutableToolContext = { -readonly [K in keyof McpToolContext]: McpToolContext[K] };

/**
 * One tool call as the gate sees it: what the guard admitted, the lock it holds, and
 * whether the transition interceptor stored a new state. Passed as the third handler argument.
 */
export class FsmCall {
  instance?: FsmInstanceRef;
  /** Lock held between admission and commit (transition tools). */
  lock?: FsmInstanceLock;
  /** Transaction a transactional start tool writes its instance in. */
  transaction?: FsmTransaction;
  /** State after a stored transition. */
  nextState?: string;
  /**
   * The gate's refusal, kept here as well as thrown: a user's catch-all exception filter
   * may swallow the thrown one, but the call is refused all the same.
   */
  refusal?: FsmRefusal;
  settled = false;

  constructor(
    readonly tool: McpToolDefinition,
    readonly session: McpSession,
    readonly args: Record<string, unknown>,
    readonly context: MutableToolContext,
  ) {}

  /** Owner recorded on and required of handle-keyed instances: the auth client id, when authenticated. */
  get owner(): string | undefined {
    return this.context.authInfo?.clientId;
  }

  /** Principal recorded in history: the auth client id, else the session id. */
  get principal(): string | null {
    return this.context.authInfo?.clientId ?? this.context.sessionId ?? null;
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

  /** Releases whatever the call still holds (no-op after a commit). */
  async settle(): Promise<void> {
    if (this.settled) {
      return;
    }
    this.settled = true;
    await this.lock?.release();
    await this.transaction?.rollback();
  }
}
