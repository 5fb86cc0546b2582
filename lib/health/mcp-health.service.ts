import { Inject, Injectable, Optional } from '@nestjs/common';
import { WorkflowDeadlineScheduler, type WorkflowDeadlinePolling } from '../deadlines/workflow-deadline.scheduler.js';
import type { TransitionRelay } from '../relays/transition-relay.interface.js';
import { TRANSITION_RELAY } from '../relays/workflow-transition.bus.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import * as messages from './health.messages.js';

/** The state store's health, as {@link McpHealthService.checkStore} found it. */
export interface McpStoreHealth {
  /** Whether the store answered its ping. */
  up: boolean;
  /** The store's class name. */
  store: string;
  /** How long the ping took (or how long was waited), in milliseconds. */
  responseTimeMs: number;
  /** Why it is down. */
  reason?: string;
}

/** The transition relay's health, as {@link McpHealthService.checkRelay} found it. */
export interface McpRelayHealth {
  /** Whether a relay is configured (`transitionRelay`); without one, transitions reach this process only. */
  configured: boolean;
  /** Whether the relay carries transitions now (`true` without a relay, and for a relay that cannot tell). */
  connected: boolean;
  /** The relay's class name. */
  relay?: string;
  /** Why it is not connected, or why that cannot be told. */
  reason?: string;
}

/** The deadline scheduler's health, as {@link McpHealthService.checkDeadlines} found it. */
export interface McpDeadlineHealth {
  /** Whether this process polls for due timers (a machine has `after`, or an approval expires). */
  active: boolean;
  /** `false` once `downAfterFailures` polls in a row failed: due deadlines do not fire from this process. */
  up: boolean;
  /** When a poll last succeeded (ISO-8601). */
  lastPollAt?: string;
  /** Since when polls fail, without a success between (ISO-8601). */
  failingSince?: string;
  /** Polls failed in a row. */
  failedPolls: number;
  /** Timers given up since the process started (failed `maxAttempts` times, dropped; their instances stayed where they were). */
  gaveUp: number;
  /** Why it is down, or why nothing is polled. */
  reason?: string;
}

/** What a module without deadlines reports: nothing is polled. */
const IDLE: WorkflowDeadlinePolling = { active: false, failedPolls: 0, gaveUp: 0 };

/** Polls failed in a row after which {@link McpHealthService.checkDeadlines} reports down (about half a minute at the default `pollMs`, with its backoff). */
const DEFAULT_DOWN_AFTER_FAILURES = 5;

/** How long {@link McpHealthService.checkStore} waits for a store, whatever the store's own time limit. */
const DEFAULT_HEALTH_TIMEOUT_MS = 5000;

/**
 * The health of what the module depends on: the state store (a bounded round trip, its
 * `ping`), the transition relay (its connection) and the deadline scheduler (its polls). Framework-free: the `@nestjs/terminus`
 * indicators of `nestjs-mcp-fsm/terminus` report it, and so can any other health endpoint.
 *
 * @example
 * const store = await health.checkStore();
 * if (!store.up) logger.warn(`workflow store down: ${store.reason}`);
 */
@Injectable()
export class McpHealthService {
  constructor(
    private readonly store: FsmStoreAdapter,
    @Optional() @Inject(WorkflowDeadlineScheduler) private readonly deadlines?: WorkflowDeadlineScheduler | null,
    @Optional() @Inject(TRANSITION_RELAY) private readonly relay?: TransitionRelay | null,
  ) {}

  /**
   * Pings the store: down when it fails or does not answer within `timeoutMs` (the TypeORM
   * store also gives up within its own `timeoutMs`, closing the connection that hung).
   */
  async checkStore({ timeoutMs = DEFAULT_HEALTH_TIMEOUT_MS }: { timeoutMs?: number } = {}): Promise<McpStoreHealth> {
    const store = this.store.name;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs).unref();
    });
    try {
      const outcome = await Promise.race([this.store.ping(), timedOut]);
      const responseTimeMs = Math.round(performance.now() - started);
      return outcome === 'timeout'
        ? { up: false, store, responseTimeMs, reason: messages.storePingTimedOut(store, timeoutMs) }
        : { up: true, store, responseTimeMs };
    } catch (error) {
      return { up: false, store, responseTimeMs: Math.round(performance.now() - started), reason: messages.storePingFailed(store, error) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** What the relay knows of its connection, at once (no round trip). */
  checkRelay(): McpRelayHealth {
    const { relay } = this;
    if (!relay) {
      return { configured: false, connected: true, reason: messages.noRelay() };
    }
    const name = relay.constructor.name;
    if (!relay.health) {
      return { configured: true, connected: true, relay: name, reason: messages.relayCannotTell(name) };
    }
    const { connected, reason } = relay.health();
    return { configured: true, connected, relay: name, ...(reason === undefined ? {} : { reason }) };
  }

  /**
   * How the deadline scheduler's polls went, at once (no round trip): down once
   * `downAfterFailures` polls in a row failed (the store keeps failing them), up again after the
   * next poll that succeeds; up (not active) when nothing has deadlines. `gaveUp` counts timers
   * dropped after `maxAttempts` failed firings (each logged as an error).
   */
  checkDeadlines({ downAfterFailures = DEFAULT_DOWN_AFTER_FAILURES }: { downAfterFailures?: number } = {}): McpDeadlineHealth {
    const { active, lastPollOkAt, failingSince, failedPolls, lastError, gaveUp } = this.deadlines?.polling() ?? IDLE;
    const since = failingSince === undefined ? undefined : new Date(failingSince).toISOString();
    const up = !active || failedPolls < downAfterFailures;
    const reason = !active ? messages.noDeadlines() : up ? undefined : messages.deadlinePollsFailing(failedPolls, since!, lastError);
    return {
      active,
      up,
      ...(lastPollOkAt === undefined ? {} : { lastPollAt: new Date(lastPollOkAt).toISOString() }),
      ...(since === undefined ? {} : { failingSince: since }),
      failedPolls,
      gaveUp,
      ...(reason === undefined ? {} : { reason }),
    };
  }
}
