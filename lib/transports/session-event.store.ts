import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpSessionStore } from '../stores/mcp-session-store.interface.js';

/** The SDK's id of a session's GET stream. */
const GET_STREAM = '_GET_stream';
/** Event ids of the GET stream: `g<id in the session store>`. */
const GET_EVENT = /^g(.+)$/;
/** Event ids of a request's stream: `<stream id>.<n>`. */
const REQUEST_EVENT = /^(.+)\.\d+$/;

/** Whether `eventId` is an event of a session's GET stream, kept or not (not of a request's stream). */
export function isGetStreamEventId(eventId: string): boolean {
  return GET_EVENT.test(eventId) || REQUEST_EVENT.exec(eventId)?.[1] === GET_STREAM;
}

/**
 * One session's SDK event store. Messages of the GET stream (the notifications of changes
 * made elsewhere) are kept in the session store while `keep` says the session has a GET
 * stream here to replay them into, so a client that reconnects with `Last-Event-ID`, on any
 * process, gets what it missed; a session that never opened one costs no write. A request's
 * stream is answered on the connection that carries the request: its events get ids (a
 * reconnect is re-attached to the request's stream while this process still serves it) but
 * are not kept, nor are GET-stream messages that `keep` turned away.
 */
export class McpSessionEventStore implements EventStore {
  private sent = 0;
  /** The request streams this process opened (their priming event) that have not carried a response yet. */
  private readonly open = new Set<string>();

  constructor(
    private readonly sessionId: string,
    private readonly store: McpSessionStore,
    private readonly keep: () => boolean,
    private readonly onReplayMiss: (eventId: string) => void,
    /** Told when the session store fails: the message still goes out (not kept), a replay opens the stream without what it missed. */
    private readonly onStoreFailure: (error: unknown) => void = () => undefined,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (streamId === GET_STREAM) {
      const kept = this.keep() ? await this.store.appendEvent(this.sessionId, message).catch(this.failed) : undefined;
      return kept === undefined ? `${streamId}.${++this.sent}` : `g${kept}`;
    }
    if (!('jsonrpc' in message)) this.open.add(streamId);
    else if ('result' in message || 'error' in message) this.open.delete(streamId);
    return `${streamId}.${++this.sent}`;
  }

  /**
   * Whether `eventId` is an event of a request's stream that this process serves still: its
   * request runs here, so a GET that resumes it gets the rest of its messages and its response.
   */
  servesRequestStream(eventId: string): boolean {
    const streamId = REQUEST_EVENT.exec(eventId)?.[1];
    return streamId !== undefined && this.open.has(streamId);
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return GET_EVENT.test(eventId) ? GET_STREAM : REQUEST_EVENT.exec(eventId)?.[1];
  }

  /** A store failure, told and swallowed: what it was to give is left out. */
  private readonly failed = (error: unknown): undefined => {
    this.onStoreFailure(error);
    return undefined;
  };

  /** Sends the kept GET-stream messages after `lastEventId`; an id it does not know (pruned, forged) replays nothing. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? GET_STREAM;
    const kept = GET_EVENT.exec(lastEventId);
    if (!kept) return streamId;
    const events = await this.store.eventsAfter(this.sessionId, kept[1]).catch(this.failed);
    if (!events) {
      this.onReplayMiss(lastEventId);
      return streamId;
    }
    for (const event of events) await send(`g${event.id}`, event.message);
    return streamId;
  }
}
