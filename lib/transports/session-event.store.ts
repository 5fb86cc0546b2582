import type { EventStore } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpSessionStore } from '../stores/mcp-session-store.interface.js';

/** The SDK's id of a session's GET stream. */
const GET_STREAM = '_GET_stream';
/** Event ids of the GET stream: `g<id in the session store>`. */
const GET_EVENT = /^g(.+)$/;
/** Event ids of a request's stream: `<stream id>.<n>`. */
const REQUEST_EVENT = /^(.+)\.\d+$/;

/** Whether `eventId` is an event of a session's GET stream (not of a request's stream). */
export function isGetStreamEventId(eventId: string): boolean {
  return GET_EVENT.test(eventId);
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

  constructor(
    private readonly sessionId: string,
    private readonly store: McpSessionStore,
    private readonly keep: () => boolean,
    private readonly onReplayMiss: (eventId: string) => void,
  ) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    if (streamId === GET_STREAM && this.keep()) {
      return `g${await this.store.appendEvent(this.sessionId, message)}`;
    }
    return `${streamId}.${++this.sent}`;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return GET_EVENT.test(eventId) ? GET_STREAM : REQUEST_EVENT.exec(eventId)?.[1];
  }

  /** Sends the kept GET-stream messages after `lastEventId`; an id it does not know (pruned, forged) replays nothing. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = (await this.getStreamIdForEventId(lastEventId)) ?? GET_STREAM;
    const kept = GET_EVENT.exec(lastEventId);
    if (!kept) return streamId;
    const events = await this.store.eventsAfter(this.sessionId, kept[1]);
    if (!events) {
      this.onReplayMiss(lastEventId);
      return streamId;
    }
    for (const event of events) await send(`g${event.id}`, event.message);
    return streamId;
  }
}
