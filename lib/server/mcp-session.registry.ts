import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import { FsmTransitionBus, type FsmTransitionEvent } from '../gating/fsm-transition.bus.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import { isAtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import type { McpServedSession, McpSession } from './mcp-session.js';
import * as messages from './server.messages.js';
import { LIST_CHANGED, ToolMenuService } from './tool-menu.service.js';

interface LiveSession {
  session: McpServedSession;
  close: () => Promise<void>;
}

/**
 * The live connections of this process: closes idle ones, caps their number, sends
 * `list_changed` to every session whose menu a transition changed (the caller is told
 * in-band; only the sessions that follow the changed instance are visited, so a transition
 * costs the same with 2 or 2,000 live sessions), and deletes a closed HTTP session's
 * session-keyed instances, which nobody can address again (their history stays).
 */
@Injectable()
export class McpSessionRegistry implements BeforeApplicationShutdown {
  private readonly logger = new Logger('McpSessions');
  private readonly live = new Map<string, LiveSession>();
  private readonly unsubscribe: () => void;
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleTtlMs: number;

  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
    private readonly bus: FsmTransitionBus,
    private readonly menu: ToolMenuService,
    private readonly machines: McpMachineRegistry,
    @Inject(FsmStateStore) private readonly store: FsmStateStore,
  ) {
    this.idleTtlMs = options.sessionIdleTtlMs;
    this.unsubscribe = bus.subscribe((event) => this.notify(event));
    this.sweeper = setInterval(() => void this.evictIdle(), Math.min(this.idleTtlMs, 60_000)).unref();
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

  /** Forgets a closed session and deletes its session-keyed instances. */
  remove(key: string): void {
    const entry = this.live.get(key);
    this.live.delete(key);
    if (entry) {
      this.menu.untrack(entry.session);
      void this.forget([entry.session]);
    }
  }

  get size(): number {
    return this.live.size;
  }

  /**
   * Closes every session before Nest closes the HTTP server, which would otherwise wait
   * for the clients' open GET streams.
   */
  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.sweeper);
    this.unsubscribe();
    const entries = [...this.live.values()];
    this.live.clear();
    for (const { session } of entries) {
      this.menu.untrack(session);
    }
    await Promise.allSettled(entries.map((entry) => entry.close()));
    await this.forget(entries.map((entry) => entry.session));
  }

  private notify(event: FsmTransitionEvent): void {
    // A copy: applying the transition may make a follower stop following the instance.
    for (const session of [...this.menu.followersOf(event.storeKey)]) {
      if (session === event.origin) {
        continue;
      }
      const send = (notification: Parameters<McpServedSession['server']['notification']>[0]) =>
        void session.server?.notification(notification).catch((error: unknown) => this.logger.warn(messages.notifyFailed(session.id, error)));
      for (const kind of this.menu.applyTransition(session, event.machine, event.storeKey, event.state)) {
        send({ method: LIST_CHANGED[kind] });
      }
      for (const uri of session.subscriptions?.get(event.storeKey) ?? []) {
        send({ method: 'notifications/resources/updated', params: { uri } });
      }
    }
  }

  private async evictIdle(): Promise<void> {
    const cutoff = Date.now() - this.idleTtlMs;
    for (const [key, entry] of this.live) {
      if (entry.session.kind === 'stateful' && entry.session.lastSeen < cutoff) {
        this.remove(key);
        await entry.close().catch((error: unknown) => this.logger.warn(messages.closeFailed(key, error)));
      }
    }
  }

  private async forget(sessions: McpSession[]): Promise<void> {
    if (!isAtomicFsmStateStore(this.store) || !this.store.delete) {
      return;
    }
    const keys = sessions
      .filter((session) => session.kind === 'stateful')
      .flatMap((session) => this.machines.ids().map((id) => this.machines.machine(id).stateHandleKey ? undefined : session.sessionStoreKey(id)))
      .filter((key): key is string => key !== undefined);
    await this.store.delete(keys).catch((error: unknown) => this.logger.warn(messages.forgetFailed(error)));
  }
}
