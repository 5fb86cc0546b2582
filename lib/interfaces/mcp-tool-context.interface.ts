import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

/** What a tool handler knows about its call; inject it with `@ToolContext()`. */
export interface McpToolContext {
  /** Name of the tool being called. */
  readonly toolName: string;
  /** `Mcp-Session-Id` of a stateful HTTP session; absent on stdio and stateless HTTP. */
  readonly sessionId?: string;
  /** Machine id of a bound or start tool. */
  readonly machine?: string;
  /** Handle of the instance: the `stateHandleKey` value, or the minted one in a start tool. */
  readonly handle?: string;
  /** State of the instance when the call was admitted. */
  readonly state?: string;
  /** Auth info the transport attached to the request (bearer auth), when there is one. */
  readonly authInfo?: AuthInfo;
  /**
   * The transaction's entity manager in transactional mode (a TypeORM `EntityManager`):
   * writes through it commit or roll back together with the state change.
   */
  readonly manager?: unknown;
  /**
   * Store key of this connection's instance of a session-keyed machine (to read its state or
   * history from the store, for example in an unbound status tool); `undefined` on a
   * connection without session state (stateless HTTP that is not single-tenant).
   */
  readonly sessionStoreKey: (machine: string) => string | undefined;
  /** The SDK's request extra: `signal`, `sendNotification` (progress), `requestId`, ... */
  readonly extra: RequestHandlerExtra<ServerRequest, ServerNotification>;
}
