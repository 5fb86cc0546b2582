import type { InitializeRequest, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** What a stateful session's `initialize` left behind, enough for any process to serve it again. */
export interface McpSessionRecord {
  /** The `Mcp-Session-Id`. */
  id: string;
  /** `serverId` of the server that opened it: another server of the app never serves it. */
  serverId: string;
  /** The client's `initialize` params (protocol version, capabilities, client info), replayed to rebuild the session. */
  initialize: InitializeRequest['params'];
  /** The principal (auth client id) that opened it; every request must carry the same one. */
  principal?: string;
  /** Epoch ms. */
  createdAt: number;
  /**
   * Epoch ms of the last request of the session, on any process. It stays equal to `createdAt`
   * until the session is first used (a request other than `initialize` and
   * `notifications/initialized`): that is how every process tells an unused session.
   */
  lastSeenAt: number;
}

/** A message sent on a session's GET stream, kept so that a reconnect with `Last-Event-ID` gets what it missed. */
export interface McpStoredEvent {
  /** The SSE event id (unique in the store, increasing within a session). */
  id: string;
  message: JSONRPCMessage;
}

/**
 * Where stateful HTTP sessions live, so that every process sharing it can serve every
 * session: after a restart, on another replica, with no sticky routing. Pass one as
 * `sessions.store` (for example `TypeOrmMcpSessionStore` from `nestjs-mcp-fsm/typeorm`).
 * The default, `InMemoryMcpSessionStore`, serves the sessions of one process.
 */
export interface McpSessionStore {
  /** Records a new session. */
  create(record: McpSessionRecord): Promise<void>;
  /** The session's record, or `undefined` when it ended or never existed. */
  find(id: string): Promise<McpSessionRecord | undefined>;
  /** Sets the session's `lastSeenAt`; `false` when the session no longer exists (ended elsewhere). */
  touch(id: string, at: number): Promise<boolean>;
  /** Ends a session and drops its events; `false` when it did not exist. */
  delete(id: string): Promise<boolean>;
  /**
   * Ends at most `limit` sessions of `serverId` last seen before `cutoff` (epoch ms), with
   * their events, and returns their ids. Safe to run from several processes at once: each
   * id is returned to at most one of them.
   */
  expire(serverId: string, cutoff: number, limit: number): Promise<string[]>;
  /**
   * Ends at most `limit` sessions of `serverId` created before `cutoff` (epoch ms) and never
   * used (`lastSeenAt` still equals `createdAt`), with their events, and returns their ids.
   * Safe to run from several processes at once: each id is returned to at most one of them.
   */
  expireUnused(serverId: string, cutoff: number, limit: number): Promise<string[]>;
  /** Keeps a message of the session's GET stream; returns its event id. */
  appendEvent(sessionId: string, message: JSONRPCMessage): Promise<string>;
  /**
   * The session's GET-stream messages after `eventId`, oldest first; `undefined` when
   * `eventId` is not an event of this session (forged, or already pruned).
   */
  eventsAfter(sessionId: string, eventId: string): Promise<McpStoredEvent[] | undefined>;
  /** Drops at most `limit` events kept before `cutoff` (epoch ms); returns how many. */
  pruneEvents(cutoff: number, limit: number): Promise<number>;
}

/** Injection token of the module's {@link McpSessionStore}. */
export const McpSessionStore = Symbol('nestjs-mcp-fsm:McpSessionStore');
