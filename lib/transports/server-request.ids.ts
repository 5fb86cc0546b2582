import { randomBytes } from 'node:crypto';
import type { JSONRPCErrorResponse, JSONRPCMessage, JSONRPCResultResponse, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { McpPendingRequestsError } from '../results/pending-requests.error.js';

/** A request id on the wire: the tag of the process that sent it, `-`, a number of that process. */
const WIRE_ID = /^([0-9a-f]{16})-(\d{1,15})$/;

/** A server-to-client request of this process that waits for its answer. */
interface PendingServerRequest {
  /** The session it was sent on. */
  readonly sessionId: string;
  /** The principal of that session (`undefined` without authentication). */
  readonly principal: string | undefined;
  /** Hands the client's answer to the session's SDK server, under the id the SDK gave the request. */
  answer(message: JSONRPCResultResponse | JSONRPCErrorResponse): void;
}

/**
 * The ids of the requests this process sends to clients on stateful HTTP sessions. The SDK
 * numbers a session's requests from 0 in each process, so the same id can be waiting in two
 * processes of one session; on the wire each request carries an id of this process instead
 * (`<tag>-<n>`, unique in the process, the tag random per process), which says which process
 * waits for the answer, and which session: a reply is taken only from the session it was asked on.
 */
export class ServerRequestIds {
  /** This process's tag, random per process: a restarted process waits for none of its predecessor's answers. */
  readonly tag = randomBytes(8).toString('hex');
  private sequence = 0;
  private readonly pending = new Map<string, PendingServerRequest>();

  /** The tag of the process that sent the request `id` answers, or `undefined` when `id` is not such an id. */
  static senderOf(id: unknown): string | undefined {
    return typeof id === 'string' ? WIRE_ID.exec(id)?.[1] : undefined;
  }

  /** The requests of one session, for its SDK transport; at most `maxPending` wait at once. */
  forSession(
    sessionId: string,
    principal: string | undefined,
    deliver: (message: JSONRPCMessage) => void,
    maxPending = Infinity,
  ): SessionServerRequests {
    return new SessionServerRequests(this, sessionId, principal, deliver, maxPending);
  }

  /** The request of this process that waits for the answer with wire id `id`, if any. */
  waiting(id: unknown): PendingServerRequest | undefined {
    return typeof id === 'string' ? this.pending.get(id) : undefined;
  }

  /** How many requests wait for an answer. */
  get size(): number {
    return this.pending.size;
  }

  /** @internal A wire id for a new request, waiting as `request` until {@link forget}. */
  register(request: PendingServerRequest): string {
    const id = `${this.tag}-${this.sequence++}`;
    this.pending.set(id, request);
    return id;
  }

  /** @internal No longer waits for the answer of `id`. */
  forget(id: string): void {
    this.pending.delete(id);
  }
}

/**
 * The server-to-client requests of one session: outgoing requests get a wire id of the process
 * (and a cancellation the same id), an answer goes back to the SDK under the SDK's own id, and
 * a request stops waiting when it is answered, cancelled (the SDK's timeout), fails to send or
 * the session's transport closes: nothing is kept for a request nobody waits for. A request
 * beyond `maxPending` waiting ones is refused ({@link McpPendingRequestsError}), not sent.
 */
export class SessionServerRequests {
  /** Wire id of each waiting request, by the SDK's id. */
  private readonly wireIds = new Map<RequestId, string>();

  constructor(
    private readonly ids: ServerRequestIds,
    private readonly sessionId: string,
    private readonly principal: string | undefined,
    private readonly deliver: (message: JSONRPCMessage) => void,
    private readonly maxPending: number,
  ) {}

  /** How many of the session's requests wait for an answer. */
  get size(): number {
    return this.wireIds.size;
  }

  /** The message as it goes to the client: a request with a wire id, a cancellation of one naming it; throws for a request over the limit. */
  outbound(message: JSONRPCMessage): JSONRPCMessage {
    if ('method' in message && 'id' in message) {
      if (this.wireIds.size >= this.maxPending) {
        throw new McpPendingRequestsError(this.maxPending);
      }
      const localId = message.id;
      const wireId = this.ids.register({
        sessionId: this.sessionId,
        principal: this.principal,
        answer: (answer) => {
          this.release(localId);
          this.deliver({ ...answer, id: localId });
        },
      });
      this.wireIds.set(localId, wireId);
      return { ...message, id: wireId };
    }
    if ('method' in message && message.method === 'notifications/cancelled') {
      const localId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      const wireId = localId === undefined ? undefined : this.wireIds.get(localId);
      if (localId !== undefined && wireId !== undefined) {
        this.release(localId);
        return { ...message, params: { ...message.params, requestId: wireId } };
      }
    }
    return message;
  }

  /** A message from {@link outbound} could not be sent: its request waits for nothing. */
  unsent(message: JSONRPCMessage): void {
    if ('method' in message && 'id' in message) {
      for (const [localId, wireId] of this.wireIds) {
        if (wireId === message.id) this.release(localId);
      }
    }
  }

  /** The session's transport closed: none of its requests waits any longer. */
  close(): void {
    for (const localId of [...this.wireIds.keys()]) this.release(localId);
  }

  private release(localId: RequestId): void {
    const wireId = this.wireIds.get(localId);
    if (wireId !== undefined) {
      this.wireIds.delete(localId);
      this.ids.forget(wireId);
    }
  }
}
