import { createHook, type AsyncHook } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';

/** Async resources the process created while serving session POSTs (one at a time), per request. */
export interface AsyncCounts {
  requests: number;
  /** By async_hooks type (PROMISE, TickObject, Timeout, Immediate, …), per request. */
  perRequest: Record<string, number>;
  /** Timers by their delay in ms, per request. */
  timersByDelay: Record<string, number>;
  /** Where the timers of at most 10 ms were set (a request waits at least that long when it awaits one), first frames of each place. */
  shortTimerSites: string[];
}

/** A timer that short, set while a request is served, is a wait the request may sit through. */
const SHORT_TIMER_MS = 10;

interface Counting {
  hook: AsyncHook;
  requests: number;
  inRequest: boolean;
  types: Map<string, number>;
  timers: Map<string, number>;
  sites: Set<string>;
}

const REQUEST_START = 'http.server.request.start';
const RESPONSE_FINISH = 'http.server.response.finish';

/**
 * Counts, in a bench target process, the async resources (promises, ticks, timers, …) created
 * while a session POST is served, and where short timers are set: a timer a request awaits
 * is time it waits. async_hooks slow everything down, so this never runs during a profile.
 */
export class AsyncCounter {
  private counting?: Counting;

  private readonly onCountStart = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (!this.counting || request.method !== 'POST' || !request.headers['mcp-session-id']) return;
    this.counting.requests++;
    this.counting.inRequest = true;
  };

  private readonly onCountFinish = () => {
    if (this.counting) this.counting.inRequest = false;
  };

  /**
   * Starts counting the async resources created while a session POST is served (async_hooks:
   * slow, so not during a CPU profile). Only right when requests come one at a time.
   */
  start(): void {
    const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
    const counting: Counting = {
      requests: 0,
      inRequest: false,
      types: new Map(),
      timers: new Map(),
      sites: new Set(),
      hook: createHook({
        init: (_id, type, _trigger, resource) => {
          if (!counting.inRequest) return;
          bump(counting.types, type);
          if (type !== 'Timeout') return;
          const delay = (resource as { _idleTimeout: number })._idleTimeout;
          bump(counting.timers, String(delay));
          if (delay <= SHORT_TIMER_MS) counting.sites.add(timerSite());
        },
      }),
    };
    this.counting = counting;
    subscribe(REQUEST_START, this.onCountStart);
    subscribe(RESPONSE_FINISH, this.onCountFinish);
    counting.hook.enable();
  }

  /** Stops counting; the counts per request. */
  stop(): AsyncCounts {
    const counting = this.counting!;
    counting.hook.disable();
    unsubscribe(REQUEST_START, this.onCountStart);
    unsubscribe(RESPONSE_FINISH, this.onCountFinish);
    this.counting = undefined;
    const per = (map: Map<string, number>) =>
      Object.fromEntries(
        [...map].sort((a, b) => b[1] - a[1]).map(([key, count]) => [key, Math.round((count / counting.requests) * 100) / 100]),
      );
    return {
      requests: counting.requests,
      perRequest: per(counting.types),
      timersByDelay: per(counting.timers),
      shortTimerSites: [...counting.sites],
    };
  }
}

/** The frames that set a timer, without async_hooks' and the timers module's own. */
function timerSite(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  return frames
    .filter((frame) => !/node:internal\/async_hooks|node:internal\/timers|node:timers|bench\.async-counter/.test(frame))
    .slice(0, 4)
    .map((frame) => frame.trim())
    .join(' ← ');
}
