import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import type { McpGrants } from '../access/access-requirement.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { WorkflowTransitionBus, type WorkflowTransitionEvent } from '../relays/workflow-transition.bus.js';
import { MCP_SERVER_IDENTITY, type McpServerIdentity } from '../server/mcp-server-identity.js';
import { MCP_SESSION_OPTIONS, type McpResolvedSessionOptions } from './session-options.interface.js';
import { formatInstanceKey, parseInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { InMemoryMcpSessionStore } from '../stores/in-memory-mcp-session.store.js';
import { McpSessionStore } from '../stores/mcp-session-store.interface.js';
import type { McpServedSession, McpSession } from './mcp-session.js';
import { McpSessionFollows } from './mcp-session-follows.js';
import * as messages from './sessions.messages.js';
import { LIST_CHANGED, ToolMenuService, type McpListKind } from './tool-menu.service.js';

interface LiveSession {
  session: McpServedSession;
  close: () => Promise<void>;
}

/** Sessions a sweep ends per store call, and store calls per sweep. */
const SWEEP_BATCH = 500;
const SWEEP_CALLS = 20;

/**
 * The live connections of this process: closes idle and unused ones, ends evicted ones, sends
 * `list_changed` to every session whose menu a transition changed (the caller is told
 * in-band; only the sessions that follow the changed instance are visited, so a transition
 * costs the same with 2 or 2,000 live sessions). A session that follows a handle according to
 * the session store, learnt on another process, is found there when the handle moves, if its
 * GET stream is here (one indexed read per transition of a handle, only while this process
 * serves a GET stream, and with `stateCache` only where another process may serve its sessions
 * or the followers bound left one out). A stateful HTTP session lives on in the
 * session store when this process lets go of it (idle, shutdown): any process sharing the
 * store serves it again. It ends everywhere when its client deletes it, when it is evicted,
 * when no process has heard from it for `sessions.idleTtlMs`, or when it was never used within
 * `sessions.unusedTtlMs`; its session-keyed instances, which nobody can address again, are
 * then deleted (their history stays).
 */
@Injectable()
export class McpSessionRegistry implements BeforeApplicationShutdown {
  private readonly logger = new Logger('McpSessions');
  private readonly live = new Map<string, LiveSession>();
  /** Sessions being ended here: never rebuilt meanwhile from a record not yet deleted. */
  private readonly ending = new Set<string>();
  /** Live sessions that opened a GET stream on this process. */
  private readonly streaming = new Set<McpServedSession>();
  private readonly unsubscribe: () => void;
  private readonly unsubscribeResync: () => void;
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleTtlMs: number;
  private readonly unusedTtlMs: number;
  private sweeping?: Promise<void>;
  private rechecking?: Promise<void>;
  /** Machines a re-check asked for while one ran (`'all'`: every machine), for the next one. */
  private recheckNext?: Set<string> | 'all';

  constructor(
    @Inject(MCP_SESSION_OPTIONS) private readonly options: McpResolvedSessionOptions,
    @Inject(MCP_SERVER_IDENTITY) private readonly identity: McpServerIdentity,
    bus: WorkflowTransitionBus,
    private readonly menu: ToolMenuService,
    private readonly machines: McpMachineRegistry,
    private readonly store: FsmStoreAdapter,
    @Inject(McpSessionStore) private readonly sessionStore: McpSessionStore,
    private readonly follows: McpSessionFollows,
  ) {
    this.idleTtlMs = options.idleTtlMs;
    this.unusedTtlMs = options.unusedTtlMs;
    this.unsubscribe = bus.subscribe((event) => this.notify(event));
    this.unsubscribeResync = bus.onResync((machines) => this.recheck(machines));
    // Half the unused TTL, so an unused session ends at most 1.5 of it after its initialize.
    this.sweeper = setInterval(() => void this.sweep(), Math.min(this.idleTtlMs, this.unusedTtlMs / 2, 60_000)).unref();
  }

  /** The live connections of this process. */
  *sessions(): Generator<McpServedSession> {
    for (const { session } of this.live.values()) yield session;
  }

  /** Registers a live session under `key`; transitions of the instances it follows reach it until it is removed. */
  add(key: string, session: McpServedSession, close: () => Promise<void>): void {
    this.live.set(key, { session, close });
    this.menu.track(session);
  }

  get(key: string): McpServedSession | undefined {
    return this.live.get(key)?.session;
  }

  /** Forgets this process's connection of a session (closed here); the session itself lives on in the session store. */
  remove(key: string): void {
    const entry = this.live.get(key);
    this.live.delete(key);
    if (entry) {
      this.menu.untrack(entry.session);
      this.streaming.delete(entry.session);
    }
  }

  /** Counts a GET stream of a live session served here, until the returned function runs (when the stream closes). */
  openStream(session: McpServedSession): () => void {
    this.streaming.add(session);
    return session.openStream();
  }

  /** Ends a stateful session everywhere (its client deleted it): its record, its events and its session-keyed instances. */
  async end(id: string): Promise<void> {
    this.remove(id);
    await this.sessionStore.delete(id).catch((error: unknown) => this.logger.warn(messages.forgetFailed(error)));
    await this.forget([id]);
  }

  /**
   * Ends a stateful session everywhere to make room for another: it leaves this process's
   * live sessions at once, its record (so no process rebuilds it), events and session-keyed
   * instances are deleted, then its connection closes; its client gets 404 and re-initializes.
   */
  async evict(id: string): Promise<void> {
    const entry = this.live.get(id);
    this.ending.add(id);
    try {
      await this.end(id);
      await entry?.close().catch((error: unknown) => this.logger.warn(messages.closeFailed(id, error)));
    } finally {
      this.ending.delete(id);
    }
  }

  /**
   * Records what the caller of a request on the session holds now, and sends `list_changed`
   * for each list of its menu that changed (a step-up token shows more).
   */
  regrant(session: McpServedSession, grants: McpGrants): void {
    this.announce(session, this.menu.regrant(session, grants));
  }

  /** Whether the session is being ended here (its record may not be deleted yet). */
  isEnding(id: string): boolean {
    return this.ending.has(id);
  }

  get size(): number {
    return this.live.size;
  }

  /**
   * Closes every session before Nest closes the HTTP server, which would otherwise wait
   * for the clients' open GET streams. Sessions in a shared store live on; those of the
   * in-memory store die with the process, so they end here.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    this.unsubscribe();
    this.unsubscribeResync();
    this.recheckNext = undefined;
    await this.rechecking;
    const entries = [...this.live.entries()];
    this.live.clear();
    for (const [, { session }] of entries) {
      this.menu.untrack(session);
    }
    await Promise.allSettled(entries.map(([, entry]) => entry.close()));
    await this.sweeping;
    if (this.sessionStore instanceof InMemoryMcpSessionStore) {
      const ended = entries.filter(([, { session }]) => session.kind === 'stateful').map(([key]) => key);
      await Promise.allSettled(ended.map((id) => this.sessionStore.delete(id)));
      await this.forget(ended);
    }
  }

  private notify(event: WorkflowTransitionEvent): void {
    const told = new Set<McpSession>();
    // A copy: applying the transition may make a follower stop following the instance.
    for (const session of [...this.menu.followersOf(event.storeKey)]) {
      if (session !== event.origin) {
        told.add(session);
        this.tell(session, event);
      }
    }
    if (this.mayHaveFollowersElsewhere(event)) {
      void this.tellStoredFollowers(event, told);
    }
  }

  /** Tells a session that follows the changed instance which lists of its menu changed, and which subscribed resources show it. */
  private tell(session: McpSession, event: WorkflowTransitionEvent): void {
    void this.menu
      .applyTransition(session, event.machine, event.storeKey, event.state)
      .then((kinds) => this.announce(session, kinds))
      .catch((error: unknown) => this.logger.warn(messages.notifyFailed(session.id, error)))
      .finally(() => {
        for (const uri of session.subscriptions?.get(event.storeKey) ?? []) {
          this.send(session, { method: 'notifications/resources/updated', params: { uri } });
        }
      });
  }

  /**
   * Whether a session with a GET stream here may follow the changed handle without this process
   * knowing (it started following on another process): only then is the session store asked.
   */
  private mayHaveFollowersElsewhere(event: WorkflowTransitionEvent): boolean {
    if (event.state === null || parseInstanceKey(event.storeKey).scope !== 'handle' || !this.menu.mayMissFollowers(event.storeKey)) {
      return false;
    }
    for (const session of this.streaming) {
      if (session.hasStream(this.options.eventRetentionMs)) return true;
    }
    return false;
  }

  /**
   * Tells the live sessions with a GET stream here that follow the changed handle according to
   * the session store (its earliest followers, as many as the bound lets this process tell)
   * and were not told yet: those that started following it on another process, and those the
   * bound left out while earlier followers were here.
   */
  private async tellStoredFollowers(event: WorkflowTransitionEvent, told: ReadonlySet<McpSession>): Promise<void> {
    for (const id of await this.follows.followers(event.storeKey, this.options.maxFollowersPerInstance)) {
      const session = this.live.get(id)?.session;
      if (
        session &&
        session !== event.origin &&
        !told.has(session) &&
        session.hasStream(this.options.eventRetentionMs) &&
        this.menu.adopt(session, event.storeKey)
      ) {
        this.tell(session, event);
      }
    }
  }

  /** Sends `list_changed` for each list of the session's menu that changed. */
  private announce(session: McpSession, changed: readonly McpListKind[]): void {
    for (const kind of changed) {
      this.send(session, { method: LIST_CHANGED[kind] });
    }
  }

  private send(session: McpSession, notification: Parameters<McpServedSession['server']['notification']>[0]): void {
    void session.server?.notification(notification).catch((error: unknown) => this.logger.warn(messages.notifyFailed(session.id, error)));
  }

  /** Re-reads the menus of the live sessions that follow an instance of `machines` (every machine: `undefined`); one pass at a time. */
  private recheck(machines: readonly string[] | undefined): void {
    if (this.rechecking) {
      this.recheckNext = machines === undefined || this.recheckNext === 'all' ? 'all' : new Set([...(this.recheckNext ?? []), ...machines]);
      return;
    }
    this.rechecking = this.recheckOnce(machines).finally(() => {
      this.rechecking = undefined;
      const next = this.recheckNext;
      this.recheckNext = undefined;
      if (next) this.recheck(next === 'all' ? undefined : [...next]);
    });
  }

  /**
   * One pass of {@link recheck}, a session after the other (gently on a store that just came
   * back): each gets `list_changed` for what changed while transitions were missed. A store
   * failure ends the pass (logged once): the menus then converge on the clients' next list.
   */
  private async recheckOnce(machines: readonly string[] | undefined): Promise<void> {
    let rechecked = 0;
    let changed = 0;
    for (const [key, { session }] of [...this.live]) {
      if (this.live.get(key)?.session !== session || !this.menu.followsAny(session, machines)) {
        continue;
      }
      try {
        const kinds = await this.menu.recheck(session);
        rechecked += 1;
        changed += kinds.length > 0 ? 1 : 0;
        this.announce(session, kinds);
      } catch (error) {
        this.logger.warn(messages.recheckFailed(rechecked, error));
        return;
      }
    }
    this.logger.log(messages.menusRechecked(rechecked, changed));
  }

  /** One sweep at a time: sessions idle everywhere or never used end, idle and unused connections here close, old events go. */
  private sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.logger.warn(messages.sweepFailed(error)))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    const now = Date.now();
    const { serverId } = this.identity;
    await this.endAll((limit) => this.sessionStore.expire(serverId, now - this.idleTtlMs, limit));
    await this.endAll((limit) => this.sessionStore.expireUnused(serverId, now - this.unusedTtlMs, limit));
    for (const [key, { session }] of this.live) {
      if (session.kind === 'stateful' && (session.lastSeen < now - this.idleTtlMs || (await this.unusedHere(session, now)))) {
        await this.closeLocal(key);
      }
    }
    for (let call = 0; call < SWEEP_CALLS && this.options.eventRetentionMs > 0; call++) {
      if ((await this.sessionStore.pruneEvents(now - this.options.eventRetentionMs, SWEEP_BATCH)) < SWEEP_BATCH) break;
    }
  }

  /**
   * Whether this process's connection of a session has gone unused for `unusedTtlMs`. The
   * session may have been used through another process (its store record says so): the
   * connection, and its GET stream, then stay, marked used.
   */
  private async unusedHere(session: McpServedSession, now: number): Promise<boolean> {
    const { usage } = session;
    if (!usage || usage.used || usage.openedAt >= now - this.unusedTtlMs) {
      return false;
    }
    const record = await this.sessionStore.find(session.id!);
    usage.used = record !== undefined && record.lastSeenAt !== record.createdAt;
    return !usage.used;
  }

  /** Ends, in bounded batches, the sessions `expire` ends in the store, with their connections here and their session-keyed instances. */
  private async endAll(expire: (limit: number) => Promise<string[]>): Promise<void> {
    for (let call = 0; call < SWEEP_CALLS; call++) {
      const ended = await expire(SWEEP_BATCH);
      for (const id of ended) await this.closeLocal(id);
      await this.forget(ended);
      if (ended.length < SWEEP_BATCH) break;
    }
  }

  /** Closes this process's connection of a session, if it holds one. */
  private async closeLocal(key: string): Promise<void> {
    const entry = this.live.get(key);
    if (entry) {
      this.remove(key);
      await entry.close().catch((error: unknown) => this.logger.warn(messages.closeFailed(key, error)));
    }
  }

  /** Deletes the session-keyed instances of ended sessions. */
  private async forget(sessionIds: readonly string[]): Promise<void> {
    if (sessionIds.length === 0 || !this.store.supports.delete) {
      return;
    }
    const sessionMachines = this.machines.ids().filter((machine) => !this.machines.machine(machine).stateHandleKey);
    const keys = sessionIds.flatMap((id) => sessionMachines.map((machine) => formatInstanceKey({ machine, scope: 'session', id })));
    if (keys.length > 0) {
      await this.store.delete(keys).catch((error: unknown) => this.logger.warn(messages.forgetFailed(error)));
    }
  }
}
