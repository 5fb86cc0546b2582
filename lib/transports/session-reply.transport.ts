import type { WebStandardStreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { NodeStreamableHttpServerTransport } from './node-streamable-http-server.transport.js';
import type { ServerRequestIds, SessionServerRequests } from './server-request.ids.js';

/**
 * The transport of a stateful HTTP session whose requests to the client carry ids of this
 * process (see {@link ServerRequestIds}), so that an answer reaching another process can be
 * sent back to this one and handed to the SDK here as if it had arrived on this transport.
 */
export class SessionReplyTransport extends NodeStreamableHttpServerTransport {
  /** The session's requests to the client that wait for an answer. */
  readonly requests: SessionServerRequests;

  constructor(
    options: WebStandardStreamableHTTPServerTransportOptions,
    ids: ServerRequestIds,
    sessionId: string,
    principal: string | undefined,
    maxPending: number,
  ) {
    super(options);
    this.requests = ids.forSession(sessionId, principal, (message) => this.onmessage?.(message), maxPending);
  }

  /** Sends a message to the client; a request over `sessions.maxPendingRequests` is refused (`McpPendingRequestsError`) and not sent. */
  override async send(message: JSONRPCMessage, options?: { relatedRequestId?: RequestId }): Promise<void> {
    const outgoing = this.requests.outbound(message);
    try {
      await super.send(outgoing, options);
    } catch (error) {
      this.requests.unsent(outgoing);
      throw error;
    }
  }

  override async close(): Promise<void> {
    this.requests.close();
    await super.close();
  }
}
