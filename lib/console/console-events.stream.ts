import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from '../options/mcp-resolved-options.interface.js';
import { WorkflowTransitionBus, type WorkflowTransitionEvent } from '../relays/workflow-transition.bus.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { deadlineAttempts, liveReadFailed } from './console.messages.js';
import { WorkflowConsoleData } from './console-data.js';
import { diagramMarks } from './console-diagram.svg.js';
import { consoleInstanceId, consoleInstancePath } from './console-instance-ref.js';
import { contextText } from './console-instance.page.js';

/** What one live stream follows: the instances of a machine (or of all), or one instance. */
type ConsoleStreamScope = { list: true; machine?: string } | { list: false; key: string };

/** How far a stream's unsent data may grow (a reader that stopped reading) before the stream is closed. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** What the browser waits before it reconnects after the server closed a stream. */
const RETRY_MS = 1000;
/**
 * Instances read at once for the live pages. Beyond, a transition that only list pages show is
 * sent as the bus carried it (its new state, the time it arrived, no owner), so a burst of
 * transitions costs the store nothing more; instance pages always get a read.
 */
const MAX_CONCURRENT_READS = 8;
/** The least time between two log lines about failed reads (an outage fails every read). */
const READ_WARN_INTERVAL_MS = 60_000;

interface ConsoleStream {
  scope: ConsoleStreamScope;
  res: ServerResponse;
  timers: NodeJS.Timeout[];
}

/**
 * The console's live streams (Server-Sent Events): every transition on the transition bus (this
 * process's, and those a relay brings from other processes) is read once from the store and
 * sent to the streams that show its instance. Bounded: at most `maxStreams` at once, a
 * heartbeat comment every `heartbeatMs`, each closed after `streamMaxMs` (the page reconnects and
 * re-reads) or as soon as its reader falls behind; all closed when the application shuts down,
 * so `app.close()` does not wait for open pages.
 */
@Injectable()
export class WorkflowConsoleStreams implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpConsole');
  private readonly streams = new Set<ConsoleStream>();
  /** Instances being read for their streams; a transition meanwhile reads again once the read ends. */
  private readonly reading = new Map<string, { again: boolean; state: string | null }>();
  private warnedAt = Number.NEGATIVE_INFINITY;
  private unsubscribe?: () => void;
  private closing = false;

  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly consoleOptions: McpResolvedConsoleOptions | null,
    private readonly bus: WorkflowTransitionBus,
    private readonly store: FsmStoreAdapter,
    private readonly data: WorkflowConsoleData,
  ) {}

  /** Follows the bus when the console is on. */
  onModuleInit(): void {
    if (this.consoleOptions) this.unsubscribe = this.bus.subscribe((event) => this.onTransition(event));
  }

  /** Closes every stream and stops following the bus. */

  onModuleDestroy(): void {
    this.closing = true;
    this.unsubscribe?.();
    for (const stream of [...this.streams]) this.close(stream);
  }

  /** Whether a new stream would be refused: the process is shutting down, or `maxStreams` are open. */
  refusal(): 'closing' | 'full' | undefined {
    if (this.closing) return 'closing';
    return this.streams.size >= this.options.maxStreams ? 'full' : undefined;
  }

  /** Serves `res` as a live stream of `scope` until the client goes, the stream's time is up, or the app shuts down. */
  open(res: ServerResponse, scope: ConsoleStreamScope, headers: Record<string, string>): void {
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const stream: ConsoleStream = { scope, res, timers: [] };
    this.streams.add(stream);
    res.once('close', () => this.close(stream));
    stream.timers.push(setInterval(() => this.write(stream, ': heartbeat\n\n'), this.options.heartbeatMs).unref());
    stream.timers.push(setTimeout(() => this.close(stream), this.options.streamMaxMs).unref());
    this.write(stream, `retry: ${RETRY_MS}\n: connected\n\n`);
  }

  private get options(): McpResolvedConsoleOptions {
    return this.consoleOptions!;
  }

  private close(stream: ConsoleStream): void {
    if (!this.streams.delete(stream)) return;
    stream.timers.forEach(clearTimeout);
    if (!stream.res.writableEnded) stream.res.end();
  }

  private write(stream: ConsoleStream, text: string): void {
    if (stream.res.writableLength > MAX_BUFFERED_BYTES) {
      stream.res.destroy();
      this.close(stream);
      return;
    }
    stream.res.write(text);
  }

  /** Runs inside the bus's `publish`, on the gate's call path: it must not throw. */
  private onTransition(event: WorkflowTransitionEvent): void {
    try {
      this.follow(event);
    } catch (error) {
      this.logger.warn(liveReadFailed(event.machine, error));
    }
  }

  private follow({ machine, storeKey, state }: WorkflowTransitionEvent): void {
    const wanted = [...this.streams].some((stream) => this.follows(stream.scope, machine, storeKey));
    if (!wanted) return;
    const pending = this.reading.get(storeKey);
    if (pending) {
      pending.again = true;
      pending.state = state;
      return;
    }
    const shownOnItsPage = [...this.streams].some((stream) => !stream.scope.list && stream.scope.key === storeKey);
    if (!shownOnItsPage && this.reading.size >= MAX_CONCURRENT_READS) {
      this.sendRow(this.row(machine, storeKey, state, { updatedAt: new Date().toISOString() }));
      return;
    }
    const read = { again: false, state };
    this.reading.set(storeKey, read);
    void this.readAndSend(machine, storeKey, read);
  }

  /**
   * Reads and sends until no transition of the instance came in meanwhile. A failed read (the
   * store is down) still moves the list rows, with the state the bus carried; it is logged at
   * most once every {@link READ_WARN_INTERVAL_MS}.
   */
  private async readAndSend(machine: string, key: string, read: { again: boolean; state: string | null }): Promise<void> {
    try {
      do {
        read.again = false;
        await this.send(machine, key);
      } while (read.again);
    } catch (error) {
      this.sendRow(this.row(machine, key, read.state, { updatedAt: new Date().toISOString() }));
      if (Date.now() - this.warnedAt >= READ_WARN_INTERVAL_MS) {
        this.warnedAt = Date.now();
        this.logger.warn(liveReadFailed(machine, error));
      }
    } finally {
      this.reading.delete(key);
    }
  }

  /** Reads the instance once and sends its list row to list streams and its whole page state to its instance streams. */
  private async send(machine: string, key: string): Promise<void> {
    const instanceStreams = [...this.streams].filter((stream) => !stream.scope.list && stream.scope.key === key);
    const known = this.data.machine(machine);
    const [snapshot, history, deadlines] = await Promise.all([
      this.store.load(key),
      instanceStreams.length ? this.store.recentHistory(key, this.options.historyLimit) : undefined,
      instanceStreams.length ? this.data.deadlines(machine, key) : [],
    ]);
    const row = this.row(
      machine,
      key,
      snapshot?.state ?? null,
      snapshot && { owner: snapshot.owner ?? null, updatedAt: snapshot.updatedAt },
    );
    this.sendRow(row);
    if (!instanceStreams.length) return;
    const page = {
      ...row,
      marks: known ? diagramMarks(known, snapshot?.state) : { current: [], within: [] },
      history: this.data.named(machine, [...(history?.entries ?? [])].reverse()),
      deadlines: deadlines.map((deadline) => ({ ...deadline, attemptsText: deadlineAttempts(deadline.attempts) })),
      context: contextText(snapshot?.context),
    };
    const instanceMessage = `event: transition\ndata: ${JSON.stringify(page)}\n\n`;
    for (const stream of instanceStreams) if (this.streams.has(stream)) this.write(stream, instanceMessage);
  }

  /** A list row's update: owner and last change as read, or only the time it arrived (owner left as the page has it). */
  private row(machine: string, key: string, state: string | null, read?: { owner?: string | null; updatedAt: string }) {
    return {
      machine,
      instance: consoleInstanceId(key),
      href: consoleInstancePath(this.options.path, machine, key),
      state,
      final: this.data.isFinal(machine, state),
      owner: read?.owner,
      updatedAt: read?.updatedAt,
    };
  }

  private sendRow(row: ReturnType<WorkflowConsoleStreams['row']>): void {
    const message = `event: transition\ndata: ${JSON.stringify(row)}\n\n`;
    for (const stream of this.streams) {
      if (stream.scope.list && (stream.scope.machine === undefined || stream.scope.machine === row.machine)) this.write(stream, message);
    }
  }

  private follows(scope: ConsoleStreamScope, machine: string, key: string): boolean {
    return scope.list ? scope.machine === undefined || scope.machine === machine : scope.key === key;
  }
}
