import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import { FsmTransitionBus, type FsmTransitionEvent } from '../gating/fsm-transition.bus.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import { isAtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import { InMemoryMcpSessionStore } from '../stores/in-memory-mcp-session.store.js';
import { McpSessionStore } from '../stores/mcp-session-store.interface.js';
import type { McpServedSession, McpSession } from './mcp-session.js';
import * as messages from './server.messages.js';
import { LIST_CHANGED, ToolMenuService, type McpListKind } from './tool-menu.service.js';

interface LiveSession {
  session: McpServedSession;
  close: () => Promise<void>;
}

/** Sessions a sweep ends per store call, and store calls per sweep. */
const SWEEP_BATCH = 500;
const SWEEP_CALLS = 20;

/**
 * The live connections of this process: closes idle ones, caps their number, sends
 * `list_changed` to every session whose menu a transition changed (the caller is told
 * in-band; only the sessions that follow the changed instance are visited, so a transition
 * costs the same with 2 or 2,000 live sessions). A stateful HTTP session lives on in the
 * session store when this process lets go of it (idle, shutdown): any process sharing the
 * store serves it again. It ends everywhere when its client deletes it or when no process
 * has heard from it for `sessions.idleTtlMs`; its session-keyed instances, which nobody can
 * address again, are then deleted (their history stays).
 */
@Injectable()
export class McpSessionRegistry implements BeforeApplicationShutdown {
  private readonly logger = new Logger('McpSessions');
  private readonly live = new Map<string, LiveSession>();
  private readonly unsubscribe: () => void;
  private readonly unsubscribeResync: () => void;
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleTtlMs: number;
  private sweeping?: Promise<void>;
  private rechecking?: Promise<void>;
  /** Machines a re-check asked for while one ran (`'all'`: every machine), for the next one. */
  private recheckNext?: Set<string> | 'all';

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
    private readonly bus: FsmTransitionBus,
    private readonly menu: ToolMenuService,
    private readonly machines: McpMachineRegistry,
    @Inject(FsmStateStore) private readonly store: FsmStateStore,
    @Inject(McpSessionStore) private readonly sessionStore: McpSessionStore,
  ) {
    this.idleTtlMs = options.sessionIdleTtlMs;
    this.unsubscribe = bus.subscribe((event) => this.notify(event));
    this.unsubscribeResync = bus.onResync((machines) => this.recheck(machines));
    this.sweeper = setInterval(() => void this.sweep(), Math.min(this.idleTtlMs, 60_000)).unref();
  }

  /** Whether another stateful session would exceed `sessions.maxSessions`. */
  isFull(): boolean {
    return this.live.size >= this.options.maxSessions;
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
    }
  }

  /** Ends a stateful session everywhere (its client deleted it): its record, its events and its session-keyed instances. */
  async end(id: string): Promise<void> {
    this.remove(id);
    await this.sessionStore.delete(id).catch((error: unknown) => this.logger.warn(messages.forgetFailed(error)));
    await this.forget([id]);
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

  private notify(event: FsmTransitionEvent): void {
    // A copy: applying the transition may make a follower stop following the instance.
    for (const session of [...this.menu.followersOf(event.storeKey)]) {
      if (session === event.origin) {
        continue;
      }
      this.tell(session, this.menu.applyTransition(session, event.machine, event.storeKey, event.state));
      for (const uri of session.subscriptions?.get(event.storeKey) ?? []) {
        this.send(session, { method: 'notifications/resources/updated', params: { uri } });
      }
    }
  }

  /** Sends `list_changed` for each list of the session's menu that changed. */
  private tell(session: McpSession, changed: readonly McpListKind[]): void {
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
      if (this.live.get(key)?.session !== session || !this.menu.follows(session, machines)) {
        continue;
      }
      try {
        const kinds = await this.menu.recheck(session);
        rechecked += 1;
        changed += kinds.length > 0 ? 1 : 0;
        this.tell(session, kinds);
      } catch (error) {
        this.logger.warn(messages.recheckFailed(rechecked, error));
        return;
      }
    }
    this.logger.log(messages.menusRechecked(rechecked, changed));
  }

  /** One sweep at a time: sessions idle everywhere end, idle connections here close, old events go. */
  private sweep(): Promise<void> {
    this.sweeping ??= this.sweepOnce()
      .catch((error: unknown) => this.logger.warn(messages.sweepFailed(error)))
      .finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<void> {
    const now = Date.now();
    for (let call = 0; call < SWEEP_CALLS; call++) {
      const ended = await this.sessionStore.expire(this.options.serverId, now - this.idleTtlMs, SWEEP_BATCH);
      for (const id of ended) await this.closeLocal(id);
      await this.forget(ended);
      if (ended.length < SWEEP_BATCH) break;
    }
    for (const [key, entry] of this.live) {
      if (entry.session.kind === 'stateful' && entry.session.lastSeen < now - this.idleTtlMs) {
        await this.closeLocal(key);
      }
    }
    for (let call = 0; call < SWEEP_CALLS && this.options.sessionEventRetentionMs > 0; call++) {
      if ((await this.sessionStore.pruneEvents(now - this.options.sessionEventRetentionMs, SWEEP_BATCH)) < SWEEP_BATCH) break;
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
    if (sessionIds.length === 0 || !isAtomicFsmStateStore(this.store) || !this.store.delete) {
      return;
    }
    const sessionMachines = this.machines.ids().filter((machine) => !this.machines.machine(machine).stateHandleKey);
    const keys = sessionIds.flatMap((id) => sessionMachines.map((machine) => formatInstanceKey({ machine, scope: 'session', id })));
    if (keys.length > 0) {
      await this.store.delete(keys).catch((error: unknown) => this.logger.warn(messages.forgetFailed(error)));
    }
  }
}
