import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { WebStandardStreamableHTTPServerTransportOptions } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  isJSONRPCErrorResponse,
  isJSONRPCResultResponse,
  type JSONRPCErrorResponse,
  type JSONRPCResultResponse,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { ServerResponse } from 'node:http';
import type { TransitionRelay } from '../relays/transition-relay.interface.js';
import { TRANSITION_RELAY } from '../relays/workflow-transition.bus.js';
import { carriesReplies, type RelayedReply, type SessionReplyRelay } from '../relays/session-reply-relay.interface.js';
import type { McpServedSession } from '../sessions/mcp-session.js';
import { JSON_RPC_SERVER_ERROR } from '../results/json-rpc.codes.js';
import type { McpNodeRequest as Request } from './mcp-body.reader.js';
import { ServerRequestIds } from './server-request.ids.js';
import { SessionReplyTransport } from './session-reply.transport.js';
import * as messages from './session-reply.messages.js';

type Reply = JSONRPCResultResponse | JSONRPCErrorResponse;
/** Why a POST's answers were not all taken: HTTP status and message. */
type Refusal = { status: 413 | 503; message: string };

/** The "no relay" warning is logged at most once per this interval. */
const NO_RELAY_WARN_INTERVAL_MS = 60_000;

/**
 * Brings clients' answers to server-to-client requests of stateful HTTP sessions to the process
 * that asked: an answer to a request of this process is handed to the session's SDK server, one
 * to a request of another process goes there over the transition relay (when it carries replies),
 * and the POST that carried it is answered 202. An answer is taken only from the session the
 * request was sent on, with that session's principal; one for a request nobody waits for is
 * dropped. See docs/deployment.md#answers-to-server-to-client-requests.
 */
@Injectable()
export class SessionReplyForwarder {
  private readonly logger = new Logger('McpSessionReplies');
  /** The ids of this process's requests to clients. */
  readonly ids = new ServerRequestIds();
  private readonly relay?: SessionReplyRelay;
  private warnedAt = -Infinity;

  constructor(@Optional() @Inject(TRANSITION_RELAY) private readonly transitionRelay?: TransitionRelay | null) {
    if (carriesReplies(transitionRelay)) {
      this.relay = transitionRelay;
      transitionRelay.onReply((reply) => this.receive(reply));
    }
  }

  /** The SDK transport of the stateful session `sessionId` of `principal`, which may have `maxPending` requests to its client waiting. */
  createTransport(
    options: WebStandardStreamableHTTPServerTransportOptions,
    sessionId: string,
    principal: string | undefined,
    maxPending: number,
  ): SessionReplyTransport {
    return new SessionReplyTransport(options, this.ids, sessionId, principal, maxPending);
  }

  /**
   * Takes the answers to server-to-client requests out of a POST of `session` (whose principal
   * the transport checked). A POST of nothing else is answered here (202; 413 or 503 when the
   * relay could not take one) and a promise returned; otherwise `undefined`, and the POST's
   * other messages go on to the SDK.
   */
  route(session: McpServedSession, req: Request, res: ServerResponse): Promise<void> | undefined {
    const body: unknown = req.body;
    const received: unknown[] = Array.isArray(body) ? body : [body];
    const replies = received.filter(isTaggedReply);
    if (replies.length === 0 || !takesPost(req)) {
      return undefined;
    }
    const taken = this.take(session, replies);
    const rest = received.filter((message) => !replies.includes(message as Reply));
    if (rest.length > 0) {
      req.body = Array.isArray(body) ? rest : rest[0];
      void taken.then((refusal) => refusal && this.logger.warn(refusal.message));
      return undefined;
    }
    return taken.then((refusal) => {
      if (!refusal) {
        res.writeHead(202).end();
        return;
      }
      const headers = refusal.status === 503 ? { 'Retry-After': '1' } : {};
      res.writeHead(refusal.status, { ...headers, 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: JSON_RPC_SERVER_ERROR, message: refusal.message }, id: null }));
    });
  }

  /** Hands each answer to the request of this process it names, or sends it to the process that asked; the first refusal, if any. */
  private async take(session: McpServedSession, replies: Reply[]): Promise<Refusal | undefined> {
    let refusal: Refusal | undefined;
    for (const message of replies) {
      const reply: RelayedReply = { to: ServerRequestIds.senderOf(message.id)!, sessionId: session.id!, message };
      if (session.principal !== undefined) reply.principal = session.principal;
      if (reply.to === this.ids.tag) {
        this.answer(reply);
      } else {
        const failed = await this.forward(reply);
        refusal ??= failed;
      }
    }
    return refusal;
  }

  /** Sends an answer to the process that asked, over the relay; without one that carries replies, it is dropped (said once a minute). */
  private async forward(reply: RelayedReply): Promise<Refusal | undefined> {
    if (!this.relay) {
      const now = Date.now();
      if (now - this.warnedAt >= NO_RELAY_WARN_INTERVAL_MS) {
        this.warnedAt = now;
        this.logger.warn(messages.replyWithoutRelay(reply.sessionId, Boolean(this.transitionRelay)));
      }
      return undefined;
    }
    const bytes = Buffer.byteLength(JSON.stringify(reply));
    if (bytes > this.relay.maxReplyBytes) {
      const message = messages.replyTooLarge(bytes, this.relay.maxReplyBytes);
      this.logger.warn(message);
      return { status: 413, message };
    }
    try {
      await this.relay.sendReply(reply);
      return undefined;
    } catch (error) {
      this.logger.warn(messages.replyRelayFailed(error));
      return { status: 503, message: messages.replyRelayFailed() };
    }
  }

  /** A reply another process relayed: taken when it is addressed to this one. */
  private receive(reply: RelayedReply): void {
    if (reply.to === this.ids.tag) {
      this.answer(reply);
    }
  }

  /** Hands the answer to the request that waits for it, if it was sent on the reply's session to the reply's principal. */
  private answer({ sessionId, principal, message }: RelayedReply): void {
    const id = String(message.id);
    const waiting = this.ids.waiting(message.id);
    if (!waiting) {
      this.logger.debug(messages.replyNobodyWaits(id, sessionId));
      return;
    }
    if (waiting.sessionId !== sessionId || waiting.principal !== principal) {
      this.logger.warn(messages.replyForeignSession(id, sessionId));
      return;
    }
    waiting.answer(message);
  }
}

/**
 * Whether the SDK transport would take the POST's messages: it answers one whose `Accept` lacks
 * a type of Streamable HTTP (406) or whose protocol version it does not know (400) itself,
 * before any message reaches the server.
 */
function takesPost(req: Request): boolean {
  const accept = req.headers.accept ?? '';
  const version = req.headers['mcp-protocol-version'];
  return (
    accept.includes('application/json') &&
    accept.includes('text/event-stream') &&
    (version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version)))
  );
}

/** Whether `message` is an answer (result or error) to a request a process of this module sent. */
function isTaggedReply(message: unknown): message is Reply {
  return (
    ServerRequestIds.senderOf((message as { id?: unknown } | null)?.id) !== undefined &&
    (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message))
  );
}
