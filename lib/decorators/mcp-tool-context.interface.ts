import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { ClientCapabilities, LoggingLevel, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpStateValue } from '../machines/state-value.js';

/** Who asked for and who approved a call that waited for a second person's approval. */
export interface McpApprovalContext {
  /** Principal who asked; `null`: an anonymous caller. */
  readonly requestedBy: string | null;
  /** Principal who approved. */
  readonly approvedBy: string;
  /** ISO-8601 time of the request. */
  readonly requestedAt: string;
  /** The request approved. */
  readonly requestId: string;
}

/**
 * What a tool, prompt or resource handler knows about its call; inject it with
 * `@McpContext()`. `TManager` is the type of `manager` in transactional mode (a TypeORM
 * `EntityManager`).
 */
export interface McpToolContext<TManager = unknown> {
  /** Name of the tool, prompt or resource being called. */
  readonly toolName: string;
  /** The URI being read, in a resource handler. */
  readonly uri?: string;
  /** `Mcp-Session-Id` of a stateful HTTP session; absent on stdio and stateless HTTP. */
  readonly sessionId?: string;
  /** Machine id of a workflow tool (bound, start, or a read of its workflow). */
  readonly machine?: string;
  /** Handle of the instance: the `stateHandleKey` argument, or the minted one in a start tool. */
  readonly handle?: string;
  /** State of the instance when the call was admitted: a dotted path, or an object while parallel regions are active. */
  readonly state?: McpStateValue;
  /** XState context of the instance when the call was admitted (machines with context). */
  readonly workflowContext?: Record<string, unknown>;
  /** Auth info the transport attached to the request (bearer auth), when there is one. */
  readonly authInfo?: AuthInfo;
  /**
   * The transaction's entity manager in transactional mode (a TypeORM `EntityManager`):
   * writes through it commit or roll back together with the state change.
   */
  readonly manager?: TManager;
  /**
   * The capabilities the client declared: at `initialize` on a 2025-11-25 session (also one
   * rebuilt on another replica), in the request's `_meta` on a 2026-07-28 request.
   */
  readonly clientCapabilities?: ClientCapabilities;
  /**
   * The client's answers to the input requests the handler returned on the previous round
   * (`mcpInputRequired`), by their keys; `undefined` on a first round. Client input: check it.
   */
  readonly inputResponses?: Readonly<Record<string, unknown>>;
  /** The `requestState` the handler returned on the previous round, as it returned it (verified: the client cannot change it). */
  readonly requestState?: unknown;
  /** What the person filled in when confirming the call (`@McpConfirm` with a `schema`); `{}` after a plain yes. */
  readonly confirmation?: Readonly<Record<string, unknown>>;
  /**
   * Who asked for and who approved the call, in the handler of a transition that waited for a
   * second person's approval (`@McpApproval`); `undefined` for a call that did not wait.
   */
  readonly approval?: McpApprovalContext;
  /** The SDK's request extra: `signal` (aborted when the client cancels), `sendNotification`, `requestId`, ... */
  readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
  /**
   * Sends a log message to the client (`notifications/message`, on this request's stream)
   * unless the client asked for a higher minimum with `logging/setLevel`.
   */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * Reports progress of this request (`notifications/progress`) when the client asked for it
   * with a `progressToken`; does nothing otherwise. `progress` must grow from call to call.
   */
  reportProgress(progress: number, total?: number, message?: string): Promise<void>;
}
