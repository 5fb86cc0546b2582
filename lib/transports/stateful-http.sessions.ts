import { Inject, Injectable, Logger } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import { McpServerFactory } from '../server/mcp-server.factory.js';
import type { McpServedSession } from '../server/mcp-session.js';
import { McpSessionRegistry } from '../server/mcp-session.registry.js';
import { ToolMenuService } from '../server/tool-menu.service.js';
import { McpSessionRecordError } from '../stores/mcp-session-record.error.js';
import { McpSessionStore, type McpSessionRecord } from '../stores/mcp-session-store.interface.js';
import { negotiatedProtocolVersion, replayableInitialize, replayInitialize } from './initialize-replay.js';
import { McpSessionEventStore } from './session-event.store.js';
import * as messages from './transports.messages.js';

/**
 * How often a live session's `lastSeenAt` is written to the store (at most), which is also how
 * late a process notices that its session was deleted through another process. Below half the
 * idle TTL, so a session checked within it cannot have idled out since.
 */
const MAX_STORE_TOUCH_INTERVAL_MS = 1000;

/**
 * What a request on a session id finds: the session as this process serves it; `undefined`
 * when it ended, never existed, belongs to another server of the app or cannot be rebuilt
 * (HTTP 404: the client starts a new session); `'full'` when rebuilding it would exceed
 * `sessions.maxSessions`; `'unavailable'` when a store failed while rebuilding it (HTTP 503:
 * the session stays, for the client to retry).
 */
export type McpResumedSession = McpServedSession | 'full' | 'unavailable' | undefined;

/**
 * The stateful HTTP sessions of one server: opens them (recorded in the session store at
 * `initialize`, with the protocol version the server negotiated), serves a session this
 * process does not hold by rebuilding it from its record, and keeps the store's `lastSeenAt`
 * current. With `sessions.eventRetentionMs`, each session's SDK transport keeps its GET-stream
 * messages in the session store for clients that reconnect with `Last-Event-ID`, while the
 * session has a GET stream here to replay them into.
 */
@Injectable()
export class StatefulHttpSessions {
  private readonly logger = new Logger('McpSessions');
  /** Rebuilds in flight, so that concurrent requests of one session share one. */
  private readonly rebuilding = new Map<string, Promise<McpResumedSession>>();
  /** When each live session's `lastSeenAt` was last written to the store. */
  private readonly stored = new WeakMap<McpServedSession, number>();
  private readonly touchIntervalMs: number;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
    private readonly factory: McpServerFactory,
    private readonly registry: McpSessionRegistry,
    private readonly menu: ToolMenuService,
    @Inject(McpSessionStore) private readonly store: McpSessionStore,
  ) {
    this.touchIntervalMs = Math.min(MAX_STORE_TOUCH_INTERVAL_MS, options.sessionIdleTtlMs / 2);
  }

  /**
   * A new session for an `initialize` request, recorded in the store first: a store that fails
   * fails the request (HTTP 500, logged) before any session exists. The record keeps the
   * version the SDK answers the client with, which any process replays.
   */
  async open(initialize: InitializeRequest, principal: string | undefined): Promise<McpServedSession> {
    const now = Date.now();
    const record: McpSessionRecord = {
      id: randomUUID(),
      serverId: this.options.serverId,
      initialize: { ...initialize.params, protocolVersion: negotiatedProtocolVersion(initialize.params.protocolVersion) },
      principal,
      createdAt: now,
      lastSeenAt: now,
    };
    await this.store.create(record);
    const session = await this.connect(record);
    this.stored.set(session, now);
    return session;
  }

  /**
   * The session `id` as this process serves it: its live connection, or one rebuilt from the
   * store's record (see {@link McpResumedSession}). A live connection whose session ended
   * elsewhere is closed.
   */
  resume(id: string): McpServedSession | Promise<McpResumedSession> {
    const live = this.registry.get(id);
    if (live) {
      live.touch();
      // Most requests: the store heard of the session less than a second ago, nothing to await.
      return live.lastSeen - (this.stored.get(live) ?? 0) < this.touchIntervalMs ? live : this.confirm(live);
    }
    if (this.registry.isFull()) {
      return Promise.resolve('full');
    }
    let rebuilt = this.rebuilding.get(id);
    if (!rebuilt) {
      rebuilt = this.rebuild(id).finally(() => this.rebuilding.delete(id));
      this.rebuilding.set(id, rebuilt);
    }
    return rebuilt;
  }

  /** The live session once the store says it still exists; closed here, and `undefined`, when it ended elsewhere. */
  private async confirm(live: McpServedSession): Promise<McpServedSession | undefined> {
    if (await this.storeTouch(live)) return live;
    await live.server.close();
    return undefined;
  }

  /**
   * A session of the store rebuilt in this process: its record's `initialize` replayed to a
   * fresh transport, the handles it follows adopted, its instances' states read. A record that
   * cannot be replayed ends the session (404); a store that fails leaves it for a retry (503).
   * Either way one WARN line says why.
   */
  private async rebuild(id: string): Promise<McpResumedSession> {
    let record: McpSessionRecord | undefined;
    let handles: string[];
    try {
      [record, handles] = await Promise.all([this.store.find(id), this.store.handles(id)]);
    } catch (error) {
      return error instanceof McpSessionRecordError ? this.unrebuildable(id, error.message) : this.unavailable(id, error);
    }
    if (!record || record.serverId !== this.options.serverId) {
      return undefined;
    }
    const initialize = replayableInitialize(record.initialize);
    if (typeof initialize === 'string') {
      return this.unrebuildable(id, initialize);
    }
    const session = await this.connect(record);
    try {
      await replayInitialize(session.server.transport as StreamableHTTPServerTransport, this.options.http!.path, id, initialize);
    } catch (error) {
      await session.server.close();
      return this.unrebuildable(id, messages.reasonOf(error));
    }
    try {
      // What the session's instances are in now: later transitions are told against it.
      await this.menu.prime(session, handles);
      await this.storeTouch(session);
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

  /** Tells the store the session was seen; `false` when it ended elsewhere. */
  private storeTouch(session: McpServedSession): Promise<boolean> {
    this.stored.set(session, session.lastSeen);
    return this.store.touch(session.id!, session.lastSeen);
  }

  /**
   * Keeps the session's GET-stream messages in the session store, for clients that reconnect
   * with `Last-Event-ID`, while the session has a GET stream here (open, or closed within the
   * retention: older events would be pruned before a reconnect could ask for them).
   */
  private eventStore(session: McpServedSession): McpSessionEventStore {
    const id = session.id!;
    const retentionMs = this.options.sessionEventRetentionMs;
    return new McpSessionEventStore(id, this.store, () => session.hasStream(retentionMs), (eventId) => this.logger.debug(messages.replayMiss(id, eventId)));
  }

  /** A session's SDK server on a transport of its own, registered here once initialized. */
  private async connect(record: McpSessionRecord): Promise<McpServedSession> {
    const { id } = record;
    const session = this.factory.createSession('stateful', id, { scope: 'session', id }, record.principal);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: this.options.sessionEventRetentionMs > 0 ? this.eventStore(session) : undefined,
      onsessioninitialized: () => this.registry.add(id, session, () => session.server.close()),
      onsessionclosed: () => this.registry.end(id),
    });
    transport.onclose = () => this.registry.remove(id);
    await session.server.connect(transport);
    return session;
  }
}
