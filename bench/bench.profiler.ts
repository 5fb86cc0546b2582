import { createHook, type AsyncHook } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync, writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { Session } from 'node:inspector/promises';

/** What a target process measured over a profiled window. */
export interface ProfiledWindow {
  /** Each session POST served in the window: from Node's `request` event to the response's `finish`, in µs of the profile's clock. */
  requests: [number, number][];
  /** How long the main thread waited for a CPU (runnable, not running) in the window, from `/proc/self/schedstat`; `undefined` where unreadable. */
  runQueueMs?: number;
}

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

/** Microseconds of the monotonic clock V8's profiler stamps its samples with. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/** Time the main thread has spent waiting on a run queue, in ms (second field of schedstat, ns). */
function runQueueMs(): number | undefined {
  try {
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return undefined;
  }
}

/**
 * Profiles a bench target process from inside it: a V8 CPU profile of a window (the
 * inspector's sampling profiler, 100 µs interval), when each session POST in it started and
 * finished (Node's `http.server.*` diagnostics channels, no syscall per request), and how long
 * the process waited for a CPU.
 */
export class BenchProfiler {
  private session?: Session;
  private readonly started = new WeakMap<IncomingMessage, number>();
  private requests: [number, number][] = [];
  private runQueueAtStart?: number;

  private readonly onStart = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    if (request.method === 'POST' && request.headers['mcp-session-id']) this.started.set(request, nowUs());
  };

  private readonly onFinish = (message: unknown) => {
    const { request } = message as { request: IncomingMessage };
    const at = this.started.get(request);
    if (at !== undefined) this.requests.push([at, nowUs()]);
  };

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
  startCounting(): void {
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
  stopCounting(): AsyncCounts {
    const counting = this.counting!;
    counting.hook.disable();
    unsubscribe(REQUEST_START, this.onCountStart);
    unsubscribe(RESPONSE_FINISH, this.onCountFinish);
    this.counting = undefined;
    const per = (map: Map<string, number>) =>
      Object.fromEntries([...map].sort((a, b) => b[1] - a[1]).map(([key, count]) => [key, Math.round((count / counting.requests) * 100) / 100]));
    return { requests: counting.requests, perRequest: per(counting.types), timersByDelay: per(counting.timers), shortTimerSites: [...counting.sites] };
  }

  /** Starts the CPU profile and the request times. */
  async start(): Promise<void> {
    this.requests = [];
    subscribe(REQUEST_START, this.onStart);
    subscribe(RESPONSE_FINISH, this.onFinish);
    this.session = new Session();
    this.session.connect();
    await this.session.post('Profiler.enable');
    await this.session.post('Profiler.setSamplingInterval', { interval: 100 });
    this.runQueueAtStart = runQueueMs();
    await this.session.post('Profiler.start');
  }

  /** Stops both; writes the profile to `file` (a `.cpuprofile`, which Chrome DevTools opens) and returns what the window measured. */
  async stop(file: string): Promise<ProfiledWindow> {
    const { profile } = await this.session!.post('Profiler.stop');
    const runQueueAtEnd = runQueueMs();
    unsubscribe(REQUEST_START, this.onStart);
    unsubscribe(RESPONSE_FINISH, this.onFinish);
    this.session!.disconnect();
    this.session = undefined;
    writeFileSync(file, JSON.stringify(profile));
    const waited = runQueueAtEnd !== undefined && this.runQueueAtStart !== undefined ? runQueueAtEnd - this.runQueueAtStart : undefined;
    return { requests: this.requests, ...(waited === undefined ? {} : { runQueueMs: waited }) };
  }
}

/** The frames that set a timer, without async_hooks' and the timers module's own. */
function timerSite(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  return frames
    .filter((frame) => !/node:internal\/async_hooks|node:internal\/timers|node:timers|bench\.profiler/.test(frame))
    .slice(0, 4)
    .map((frame) => frame.trim())
    .join(' ← ');
}
