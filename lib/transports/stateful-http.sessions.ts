import { Inject, Injectable, Logger } from '@nestjs/common';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { InitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import { McpServerFactory } from '../server/mcp-server.factory.js';
import type { McpServedSession } from '../server/mcp-session.js';
import { McpSessionRegistry } from '../server/mcp-session.registry.js';
import { ToolMenuService } from '../server/tool-menu.service.js';
import { McpSessionStore, type McpSessionRecord } from '../stores/mcp-session-store.interface.js';
import { replayInitialize } from './initialize-replay.js';
import { isGetStreamEventId, McpSessionEventStore } from './session-event.store.js';
import * as messages from './transports.messages.js';

/**
 * How often a live session's `lastSeenAt` is written to the store (at most), which is also how
 * late a process notices that its session was deleted through another process. Below half the
 * idle TTL, so a session checked within it cannot have idled out since.
 */
const MAX_STORE_TOUCH_INTERVAL_MS = 1000;

/**
 * The stateful HTTP sessions of one server: opens them (recorded in the session store at
 * `initialize`), serves a session this process does not hold by rebuilding it from its
 * record, and keeps the store's `lastSeenAt` current. With `sessions.eventRetentionMs`, each
 * session's SDK transport keeps its GET-stream messages in the session store for clients that
 * reconnect with `Last-Event-ID`.
 */
@Injectable()
export class StatefulHttpSessions {
  private readonly logger = new Logger('McpSessions');
  /** Rebuilds in flight, so that concurrent requests of one session share one. */
  private readonly rebuilding = new Map<string, Promise<McpServedSession | undefined>>();
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
   * fails the request (HTTP 500, logged) before any session exists.
   */
  async open(initialize: InitializeRequest, principal: string | undefined): Promise<McpServedSession> {
    const now = Date.now();
    const record: McpSessionRecord = {
      id: randomUUID(),
      serverId: this.options.serverId,
      initialize: initialize.params,
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
   * store's record; `undefined` when the session ended, never existed, or belongs to another
   * server of the app; `'full'` when rebuilding it would exceed `sessions.maxSessions`. A
   * live connection whose session ended elsewhere is closed.
   */
  resume(id: string): McpServedSession | Promise<McpServedSession | 'full' | undefined> {
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

  /**
   * Makes way for a GET that reopens the session's GET stream: the SDK serves one per session,
   * and a client reconnects when its stream went silent (a half-open connection) long before
   * this process notices. A GET that resumes a request's stream (`Last-Event-ID` of one of its
   * events, with replay on) leaves the GET stream alone.
   */
  reopenStream(session: McpServedSession, req: IncomingMessage): void {
    if (!req.headers.accept?.includes('text/event-stream')) {
      return;
    }
    const lastEventId = req.headers['last-event-id'];
    if (this.options.sessionEventRetentionMs > 0 && typeof lastEventId === 'string' && !isGetStreamEventId(lastEventId)) {
      return;
    }
    (session.server.transport as StreamableHTTPServerTransport).closeStandaloneSSEStream();
  }

  /** The live session once the store says it still exists; closed here, and `undefined`, when it ended elsewhere. */
  private async confirm(live: McpServedSession): Promise<McpServedSession | undefined> {
    if (await this.storeTouch(live)) return live;
    await live.server.close();
    return undefined;
  }

  private async rebuild(id: string): Promise<McpServedSession | undefined> {
    const record = await this.store.find(id);
    if (!record || record.serverId !== this.options.serverId) {
      return undefined;
    }
    const session = await this.connect(record);
    try {
      await replayInitialize(session.server.transport as StreamableHTTPServerTransport, this.options.http!.path, record);
      // What the session's instances are in now: later transitions are told against it.
      await this.menu.prime(session);
      await this.storeTouch(session);
    } catch (error) {
      await session.server.close();
      throw error;
    }
    return session;
  }

  /** Tells the store the session was seen; `false` when it ended elsewhere. */
  private storeTouch(session: McpServedSession): Promise<boolean> {
    this.stored.set(session, session.lastSeen);
    return this.store.touch(session.id!, session.lastSeen);
  }

  /** Keeps the session's GET-stream messages in the session store, for clients that reconnect with `Last-Event-ID`. */
  private eventStore(id: string): McpSessionEventStore {
    return new McpSessionEventStore(id, this.store, (eventId) => this.logger.debug(messages.replayMiss(id, eventId)));
  }

  /** A session's SDK server on a transport of its own, registered here once initialized. */
  private async connect(record: McpSessionRecord): Promise<McpServedSession> {
    const { id } = record;
    const session = this.factory.createSession('stateful', id, { scope: 'session', id }, record.principal);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      eventStore: this.options.sessionEventRetentionMs > 0 ? this.eventStore(id) : undefined,
      onsessioninitialized: () => this.registry.add(id, session, () => session.server.close()),
      onsessionclosed: () => this.registry.end(id),
    });
    transport.onclose = () => this.registry.remove(id);
    await session.server.connect(transport);
    return session;
  }
}
