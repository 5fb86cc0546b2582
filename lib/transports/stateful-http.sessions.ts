import { Inject, Injectable, Logger } from '@nestjs/common';
import { NodeStreamableHttpServerTransport } from './node-streamable-http-server.transport.js';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { MCP_HTTP_OPTIONS, type McpResolvedHttpOptions } from '../server/http-options.interface.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { MCP_SESSION_OPTIONS, type McpResolvedSessionOptions } from '../sessions/session-options.interface.js';
import { McpServerFactory } from '../protocol/mcp-server.factory.js';
import type { McpServedSession } from '../sessions/mcp-session.js';
import { McpSessionUsage } from '../sessions/mcp-session-usage.js';
import { McpSessionRegistry } from '../sessions/mcp-session.registry.js';
import { ToolMenuService } from '../sessions/tool-menu.service.js';
import { McpSessionRecordError } from '../stores/mcp-session-record.error.js';
import { McpSessionStore, type McpSessionRecord } from '../stores/mcp-session-store.interface.js';
import type { McpNodeRequest as Request } from './mcp-body.reader.js';
import { negotiatedProtocolVersion, replayableInitialize, replayInitialize } from './initialize-replay.js';
import { McpSessionAdmission, McpSessionRefusal } from './session-admission.js';
import { isGetStreamEventId, McpSessionEventStore } from './session-event.store.js';
import * as messages from './transports.messages.js';
import { SessionReplyForwarder } from './session-reply.forwarder.js';

/**
 * How often a live session's `lastSeenAt` is written to the store (at most), which is also how
 * late a process notices that its session was deleted through another process. Below half the
 * idle TTL, so a session checked within it cannot have idled out since.
 */
const MAX_STORE_TOUCH_INTERVAL_MS = 1000;
/**
 * How long a session's GET stream is kept against a new GET that would replace it. A client
 * whose stream went half-open reconnects long after it opened and takes its place; two loops of
 * one client (a stream that resumed a lost request, then reconnected without its event id) do
 * not take turns forever: the SDK client retries a refused GET after 1 s and 1.5 s, then stops.
 */
const STREAM_TAKEOVER_AFTER_MS = 5_000;
/** How often (at most) failures of the session store under live sessions are logged. */
const STORE_WARNING_INTERVAL_MS = 60_000;

/**
 * What a request on a session id finds: the session as this process serves it; `undefined`
 * when it ended, never existed, belongs to another server of the app or cannot be rebuilt
 * (HTTP 404: the client starts a new session); a refusal when rebuilding it here would exceed a
 * `sessions` limit; `'unavailable'` when a store failed while rebuilding it (HTTP 503: the
 * session stays, for the client to retry).
 */
type McpResumedSession = McpServedSession | McpSessionRefusal | 'unavailable' | undefined;

/**
 * The stateful HTTP sessions of one server: opens them (recorded in the session store at
 * `initialize`, with the protocol version the server negotiated), serves a session this
 * process does not hold by rebuilding it from its record (admitted as a new one is), and keeps
 * the store's `lastSeenAt` current from the session's first use on (until then it stays
 * `createdAt`, which is how every process tells an unused session). With
 * `sessions.eventRetentionMs`, each session's SDK transport keeps its GET-stream messages in the
 * session store for clients that reconnect with `Last-Event-ID`, while the session has a GET
 * stream here to replay them into.
 */
@Injectable()
export class StatefulHttpSessions {
  private readonly logger = new Logger('McpSessions');
  /** Rebuilds in flight, so that concurrent requests of one session share one. */
  private readonly rebuilding = new Map<string, Promise<McpResumedSession>>();
  /** When each live session's `lastSeenAt` was last written to the store. */
  private readonly stored = new WeakMap<McpServedSession, number>();
  /** Each session's event store (with replay on): which request streams this process serves. */
  private readonly eventStores = new WeakMap<McpServedSession, McpSessionEventStore>();
  /** Each session's GET stream served here, and when it opened. */
  private readonly streams = new WeakMap<McpServedSession, { readonly res: ServerResponse; readonly openedAt: number }>();
  /** Failures of the session store under live sessions since the last warning, and when that was. */
  private storeFailures = { count: 0, warnedAt: 0 };
  private readonly touchIntervalMs: number;

  constructor(
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    @Inject(MCP_HTTP_OPTIONS) private readonly http: McpResolvedHttpOptions | null,
    @Inject(MCP_SESSION_OPTIONS) private readonly sessionOptions: McpResolvedSessionOptions,
    private readonly factory: McpServerFactory,
    private readonly registry: McpSessionRegistry,
    private readonly menu: ToolMenuService,
    @Inject(McpSessionStore) private readonly store: McpSessionStore,
    private readonly admission: McpSessionAdmission,
    private readonly replies: SessionReplyForwarder,
  ) {
    this.touchIntervalMs = Math.min(MAX_STORE_TOUCH_INTERVAL_MS, sessionOptions.idleTtlMs / 2);
  }

  /**
   * A new session for an `initialize` request, recorded in the store first: when the store
   * fails, no session exists and the answer is `'unavailable'` (HTTP 503 with `Retry-After`, as
   * `/health` says; one WARN line). The record keeps the version the SDK answers the client
   * with, which any process replays.
   */
  async open(initialize: InitializeRequest, principal: string | undefined, address: string): Promise<McpServedSession | 'unavailable'> {
    const now = Date.now();
    const record: McpSessionRecord = {
      id: randomUUID(),
      serverId: this.identity.serverId,
      initialize: { ...initialize.params, protocolVersion: negotiatedProtocolVersion(initialize.params.protocolVersion) },
      principal,
      createdAt: now,
      lastSeenAt: now,
    };
    try {
      await this.store.create(record);
    } catch (error) {
      this.logger.warn(messages.sessionNotOpened(error));
      return 'unavailable';
    }
    return this.connect(record, new McpSessionUsage(address, now, false));
  }

  /**
   * The session `id` as this process serves `req` (answered through `res`) with it: its live
   * connection, or one rebuilt from the store's record (see {@link McpResumedSession}). A live
   * connection whose session ended elsewhere is closed. A session of another principal is
   * `undefined`, as an unknown one is, and nothing of it is touched: its id tells a stranger nothing.
   */
  resume(id: string, req: Request, res: ServerResponse): McpServedSession | undefined | Promise<McpResumedSession> {
    const use = isSessionUse(req);
    const principal = req.auth?.clientId;
    const live = this.registry.get(id);
    // Only stateful HTTP sessions have a usage: another connection's key (stdio) is no session id.
    if (live?.usage) {
      return live.principal === principal ? this.attend(live, use, res) : undefined;
    }
    if (this.registry.isEnding(id)) {
      return undefined;
    }
    let rebuilt = this.rebuilding.get(id);
    if (!rebuilt) {
      rebuilt = this.rebuild(id, this.sessionOptions.clientAddress(req), principal, use).finally(() => this.rebuilding.delete(id));
      this.rebuilding.set(id, rebuilt);
    }
    return rebuilt.then((session) =>
      typeof session === 'object' && !(session instanceof McpSessionRefusal)
        ? session.principal === principal
          ? this.attend(session, use, res)
          : undefined
        : session,
    );
  }

  /** A live session taking a request: seen now, busy until `res` closes when the request uses it, confirmed with the store when due. */
  private attend(live: McpServedSession, use: boolean, res: ServerResponse): McpServedSession | Promise<McpServedSession | undefined> {
    live.touch();
    const usage = live.usage!;
    if (use) {
      usage.track(res);
    }
    if (!usage.used) {
      if (!use) {
        // Left unwritten, the store's lastSeenAt still says "unused" to every process.
        return live;
      }
      usage.used = true;
      return this.confirm(live);
    }
    // Most requests: the store heard of the session less than a second ago, nothing to await.
    return live.lastSeen - (this.stored.get(live) ?? 0) < this.touchIntervalMs ? live : this.confirm(live);
  }

  /**
   * Whether a GET on the session (answered through `res`) is served, or refused with HTTP 409
   * (the message). A GET that resumes a request's stream (`Last-Event-ID` of one of its events,
   * with replay on) is served while its request runs here, and refused otherwise: nothing of a
   * request's stream is kept, and a stream held open for it would never end (its client would
   * reconnect it without an event id, as a second GET stream). It never touches the session's GET
   * stream. A GET that opens the GET stream takes the place of the one open here (the SDK serves
   * one per session; a client reconnects when its stream went half-open, before this process
   * notices), unless that one opened less than {@link STREAM_TAKEOVER_AFTER_MS} ago: then two
   * loops of one client settle on the older stream instead of closing each other's in turn.
   */
  streamRefusal(session: McpServedSession, req: IncomingMessage, res: ServerResponse): string | undefined {
    if (!req.headers.accept?.includes('text/event-stream')) {
      return undefined;
    }
    const lastEventId = req.headers['last-event-id'];
    if (this.sessionOptions.eventRetentionMs > 0 && typeof lastEventId === 'string' && !isGetStreamEventId(lastEventId)) {
      return this.eventStores.get(session)?.servesRequestStream(lastEventId) ? undefined : messages.requestStreamEnded(lastEventId);
    }
    const open = this.streams.get(session);
    if (open && !open.res.writableEnded && !open.res.destroyed) {
      if (Date.now() - open.openedAt < STREAM_TAKEOVER_AFTER_MS) return messages.streamAlreadyOpen(STREAM_TAKEOVER_AFTER_MS / 1000);
      (session.server.transport as NodeStreamableHttpServerTransport).closeStandaloneSSEStream();
    }
    const stream = { res, openedAt: Date.now() };
    this.streams.set(session, stream);
    res.once('close', () => this.streams.get(session) === stream && this.streams.delete(session));
    return undefined;
  }

  /**
   * The live session once the store says it still exists; closed here, and `undefined`, when it
   * ended elsewhere. A store that does not answer says neither: the session is served (a call
   * that needs a store answers STATE_UNAVAILABLE on its own), and the failure is logged.
   */
  private async confirm(live: McpServedSession): Promise<McpServedSession | undefined> {
    let exists: boolean;
    try {
      exists = await this.storeTouch(live);
    } catch (error) {
      this.storeFailed(error);
      return live;
    }
    if (exists) return live;
    await live.server.close();
    return undefined;
  }

  /** Counts a failure of the session store under a live session (a touch, a kept event); logs them at most once a minute. */
  private storeFailed(error: unknown): void {
    const now = Date.now();
    this.storeFailures.count++;
    if (now - this.storeFailures.warnedAt < STORE_WARNING_INTERVAL_MS) return;
    this.logger.warn(messages.sessionStoreFailed(this.storeFailures.count, error));
    this.storeFailures = { count: 0, warnedAt: now };
  }

  /**
   * A session of the store rebuilt in this process for a request of `principal`: its record's
   * `initialize` replayed to a fresh transport, the handles it follows adopted, its instances'
   * states read. Admitted (see {@link McpSessionAdmission}) only once the record is found to be
   * the principal's, so that no id a client makes up costs another session its place. A record
   * that cannot be replayed ends the session (404); a store that fails leaves it for a retry
   * (503). Either way one WARN line says why.
   */
  private async rebuild(id: string, address: string, principal: string | undefined, use: boolean): Promise<McpResumedSession> {
    let record: McpSessionRecord | undefined;
    let handles: string[];
    try {
      [record, handles] = await Promise.all([this.store.find(id), this.store.handles(id)]);
    } catch (error) {
      return error instanceof McpSessionRecordError ? this.unrebuildable(id, error.message) : this.unavailable(id, error);
    }
    if (!record || record.serverId !== this.identity.serverId || (record.principal ?? undefined) !== principal) {
      return undefined;
    }
    const slot = this.admission.admit(address, principal);
    if (slot instanceof McpSessionRefusal) {
      return slot;
    }
    try {
      return await this.replay(id, record, handles, address, use);
    } finally {
      slot.release();
    }
  }

  /** The admitted session `id` rebuilt from its record (see {@link rebuild}). */
  private async replay(id: string, record: McpSessionRecord, handles: string[], address: string, use: boolean): Promise<McpResumedSession> {
    const initialize = replayableInitialize(record.initialize);
    if (typeof initialize === 'string') {
      return this.unrebuildable(id, initialize);
    }
    const used = use || record.lastSeenAt !== record.createdAt;
    const session = await this.connect(record, new McpSessionUsage(address, record.createdAt, used));
    try {
      await replayInitialize(session.server.transport as NodeStreamableHttpServerTransport, this.http!.path, id, initialize);
    } catch (error) {
      await session.server.close();
      return this.unrebuildable(id, messages.reasonOf(error));
    }
    try {
      // What the session's instances are in now: later transitions are told against it.
      await this.menu.prime(session, handles);
      if (used) {
        await this.storeTouch(session);
      }
    } catch (error) {
      await session.server.close();
      return this.unavailable(id, error);
    }
    return session;
  }

  /** Ends a session that no process can rebuild: its client gets 404 and starts a new one. */
  private async unrebuildable(id: string, reason: string): Promise<undefined> {
    this.logger.warn(messages.sessionNotRebuilt(id, reason));
    await this.registry.end(id);
    return undefined;
  }

  /** A store failed while rebuilding the session: the request gets 503, and the session stays. */
  private unavailable(id: string, error: unknown): 'unavailable' {
    this.logger.warn(messages.sessionRebuildUnavailable(id, error));
    return 'unavailable';
  }

  /** Tells the store the used session was seen; `false` when it ended elsewhere. */
  private storeTouch(session: McpServedSession): Promise<boolean> {
    this.stored.set(session, session.lastSeen);
    // Never `createdAt` itself, which would read as "unused" (a first request in the same millisecond).
    return this.store.touch(session.id!, Math.max(session.lastSeen, session.usage!.openedAt + 1));
  }

  /**
   * Keeps the session's GET-stream messages in the session store, for clients that reconnect
   * with `Last-Event-ID`, while the session has a GET stream here (open, or closed within the
   * retention: older events would be pruned before a reconnect could ask for them).
   */
  private eventStore(session: McpServedSession): McpSessionEventStore {
    const id = session.id!;
    const retentionMs = this.sessionOptions.eventRetentionMs;
    const events = new McpSessionEventStore(
      id,
      this.store,
      () => session.hasStream(retentionMs),
      (eventId) => this.logger.debug(messages.replayMiss(id, eventId)),
      (error) => this.storeFailed(error),
    );
    this.eventStores.set(session, events);
    return events;
  }

  /** A session's SDK server on a transport of its own, registered here once initialized. */
  private async connect(record: McpSessionRecord, usage: McpSessionUsage): Promise<McpServedSession> {
    const { id } = record;
    const session = this.factory.createSession('stateful', id, { scope: 'session', id }, record.principal);
    session.usage = usage;
    const options = {
      sessionIdGenerator: () => id,
      eventStore: this.sessionOptions.eventRetentionMs > 0 ? this.eventStore(session) : undefined,
      onsessioninitialized: () => this.registry.add(id, session, () => session.server.close()),
      onsessionclosed: () => this.registry.end(id),
    };
    const transport = this.replies.createTransport(options, id, record.principal, this.sessionOptions.maxPendingRequests);
    transport.onclose = () => this.registry.remove(id);
    await session.server.connect(transport);
    return session;
  }
}

/**
 * Whether a request uses its session: a POST that carries anything but
 * `notifications/initialized` (a request, a notification, a response to the server). The end
 * of the handshake and a GET stream do not.
 */
function isSessionUse(req: Request): boolean {
  if (req.method !== 'POST') {
    return false;
  }
  const messages: unknown[] = Array.isArray(req.body) ? req.body : [req.body];
  return messages.some((message) => (message as { method?: unknown } | null)?.method !== 'notifications/initialized');
}
