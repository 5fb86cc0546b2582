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
