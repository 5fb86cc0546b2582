import type { InitializeRequest, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { FsmTransaction } from './transactional-fsm-state-store.interface.js';

/** What a stateful session's `initialize` left behind, enough for any process to serve it again. */
export interface McpSessionRecord {
  /** The `Mcp-Session-Id`. */
  id: string;
  /** `serverId` of the server that opened it: another server of the app never serves it. */
  serverId: string;
  /**
   * The client's `initialize` params (capabilities, client info), replayed to rebuild the
   * session, with the protocol version the server negotiated (not always the one the client
   * asked for: a newer client is answered with the latest version the server speaks).
   */
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
  /**
   * The session's record, or `undefined` when it ended or never existed. A record the store
   * holds but cannot read (corrupt stored data) is an `McpSessionRecordError`.
   */
  find(id: string): Promise<McpSessionRecord | undefined>;
  /** Sets the session's `lastSeenAt`; `false` when the session no longer exists (ended elsewhere). */
  touch(id: string, at: number): Promise<boolean>;
  /** Ends a session and drops its events and the handles it follows; `false` when it did not exist. */
  delete(id: string): Promise<boolean>;
  /**
   * Ends at most `limit` sessions of `serverId` last seen before `cutoff` (epoch ms), with
   * their events and the handles they follow, and returns their ids. Safe to run from several
   * processes at once: each id is returned to at most one of them.
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
  /**
   * Records that the session follows the handle-keyed instance `storeKey` (it started or used
   * it), so every process lists its tools to the session and tells the session of its
   * transitions. Nothing changes when the session already follows it, or does not exist.
   */
  follow(sessionId: string, storeKey: string): Promise<void>;
  /**
   * Records {@link follow} inside `transaction`, the open transaction of a call that starts
   * instance `storeKey`, so the session follows the instance if and only if it was started.
   * Optional: answers `false`, having written nothing, when `transaction` is not on this store's
   * database; the session's following is then recorded with `follow` after the commit. An error
   * rolls the start back.
   */
  followWithin?(transaction: FsmTransaction, sessionId: string, storeKey: string): Promise<boolean>;
  /** Records that the session no longer follows instance `storeKey` (it ended or is gone). */
  unfollow(sessionId: string, storeKey: string): Promise<void>;
  /** Store keys of the instances the session follows, in the order it started following them. */
  handles(sessionId: string): Promise<string[]>;
  /**
   * How many instances the session follows (what `handles` would return, counted by the store).
   * Optional: with `stateCache` and a transition relay, a list asks it to tell whether the
   * session started following a handle on another process, and reads `handles` only then; a
   * store without it has `handles` read on every list.
   */
  countHandles?(sessionId: string): Promise<number>;
  /** At most `limit` ids of the sessions that follow instance `storeKey`, earliest followers first. */
  followers(storeKey: string, limit: number): Promise<string[]>;
}

/** Injection token of the module's {@link McpSessionStore}. */
export const McpSessionStore = Symbol.for('nestjs-mcp-fsm:McpSessionStore');
