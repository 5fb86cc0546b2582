import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/**
 * What a tool handler knows about its call; inject it with `@ToolContext()`. `TManager` is
 * the type of `manager` in transactional mode (a TypeORM `EntityManager`).
 */
export interface McpToolContext<TManager = unknown> {
  /** Name of the tool being called. */
  readonly toolName: string;
  /** `Mcp-Session-Id` of a stateful HTTP session; absent on stdio and stateless HTTP. */
  readonly sessionId?: string;
  /** Machine id of a workflow tool (bound, start, or a read of its workflow). */
  readonly machine?: string;
  /** Handle of the instance: the `stateHandleKey` argument, or the minted one in a start tool. */
  readonly handle?: string;
  /** State of the instance when the call was admitted. */
  readonly state?: string;
  /** XState context of the instance when the call was admitted (machines with context). */
  readonly workflowContext?: Record<string, unknown>;
  /** Auth info the transport attached to the request (bearer auth), when there is one. */
  readonly authInfo?: AuthInfo;
  /**
   * The transaction's entity manager in transactional mode (a TypeORM `EntityManager`):
   * writes through it commit or roll back together with the state change.
   */
  readonly manager?: TManager;
  /** The SDK's request extra: `signal`, `sendNotification` (progress), `requestId`, ... */
  readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
}
