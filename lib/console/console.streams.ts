import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from './console-options.interface.js';
import { WorkflowTransitionBus, type WorkflowTransitionEvent } from '../relays/workflow-transition.bus.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { deadlineAttempts, liveReadFailed, relativeTime, streamEnded } from './console.messages.js';
import { summaryOf, WorkflowConsoleData, type ConsoleListRow } from './console-data.js';
import { diagramMarks } from './console-diagram.svg.js';
import { consoleInstanceId, consoleInstancePath } from './console-instance-ref.js';
import { contextText } from './console-instance.page.js';
import { mayView, type ConsoleViewer } from './console-viewer.js';

/** What one live stream follows: the instances of a machine (or of all), or one instance. */
type ConsoleStreamScope = { list: true; machine?: string } | { list: false; key: string };

/** Who opened a stream, and until when it may run: the viewer, when its token or sign-in ends, and which sign-in it is. */
export interface ConsoleStreamViewer {
  readonly viewer: ConsoleViewer;
  /** When the stream must end (the token's or the sign-in cookie's expiry, the earlier), epoch ms. */
  readonly endsAt?: number;
  /** The sign-in the stream came with (a digest of its token): signing out ends its streams. */
  readonly signIn?: string;
}

/** How far a stream's unsent data may grow (a reader that stopped reading) before the stream is closed. */
const MAX_BUFFERED_BYTES = 256 * 1024;
/** What the browser waits before it reconnects after the server closed a stream. */
const RETRY_MS = 1000;
/**
 * Instances read at once for the live pages. Beyond, a transition that only list pages show is
 * sent as the bus carried it (its new state, the time it arrived, no owner) to the pages that see
 * every instance, so a burst of transitions costs the store nothing more; instance pages always get a read.
 */
const MAX_CONCURRENT_READS = 8;
/** The least time between two log lines about failed reads (an outage fails every read). */
const READ_WARN_INTERVAL_MS = 60_000;
/** Instances whose last read this process keeps, to tell a viewer that one it saw has ended. */
const REMEMBERED_INSTANCES = 1_000;
/** The longest a timer may wait (Node's `setTimeout` bound). */
const MAX_TIMER_MS = 2_147_483_647;

interface ConsoleStream extends ConsoleStreamViewer {
  scope: ConsoleStreamScope;
  res: ServerResponse;
  timers: NodeJS.Timeout[];
}

/** A list row as a stream sends it. */
type StreamRow = Omit<ConsoleListRow, 'key' | 'updatedAt' | 'state'> & {
  instance: string;
  href: string;
  state: string | null;
  updatedAt?: string;
  deadlineIn?: string;
};

/**
 * The console's live streams (Server-Sent Events): every transition on the transition bus (this
 * process's, and those a relay brings from other processes) is read once from the store and
 * sent to the streams that show its instance, each only what its viewer may see. Bounded: at
 * most `maxStreams` at once, a heartbeat comment every `heartbeatMs`, each closed after
 * `streamMaxMs` (the page reconnects and re-reads), when its token or sign-in expires or its
 * browser signs out (the page is told, and stops), or as soon as its reader falls behind; all
 * closed when the application shuts down, so `app.close()` does not wait for open pages.
 */
@Injectable()
export class WorkflowConsoleStreams implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('McpConsole');
  private readonly streams = new Set<ConsoleStream>();
  /** Instances being read for their streams; a transition meanwhile reads again once the read ends. */
  private readonly reading = new Map<string, { again: boolean; state: string | null }>();
  /** The last read of recent instances (most recent last), to judge who may see that one ended. */
  private readonly remembered = new Map<string, WorkflowSnapshot>();
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

  /**
   * Serves `res` as a live stream of `scope` for `opener` until the client goes, the stream's
   * time is up, the opener's token or sign-in expires or it signs out, or the app shuts down.
   */
  open(res: ServerResponse, scope: ConsoleStreamScope, opener: ConsoleStreamViewer, headers: Record<string, string>): void {
    res.writeHead(200, {
      ...headers,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      'X-Accel-Buffering': 'no',
    });
    res.flushHeaders();
    const stream: ConsoleStream = { ...opener, scope, res, timers: [] };
    this.streams.add(stream);
    res.once('close', () => this.close(stream));
    stream.timers.push(setInterval(() => this.write(stream, ': heartbeat\n\n'), this.options.heartbeatMs).unref());
    stream.timers.push(setTimeout(() => this.close(stream), this.options.streamMaxMs).unref());
    if (opener.endsAt !== undefined) {
      const left = Math.min(MAX_TIMER_MS, Math.max(0, opener.endsAt - Date.now()));
      stream.timers.push(setTimeout(() => this.end(stream, 'expired'), left).unref());
    }
    this.write(stream, `retry: ${RETRY_MS}\n: connected\n\n`);
  }

  /** Ends every stream of the sign-in `signIn` (its browser signed out): each page is told, and stops. */
  signedOut(signIn: string): void {
    for (const stream of [...this.streams]) if (stream.signIn === signIn) this.end(stream, 'signed-out');
  }

  private get options(): McpResolvedConsoleOptions {
    return this.consoleOptions!;
  }

  /** Tells the page why its stream ends (it does not reconnect), then closes it. */
  private end(stream: ConsoleStream, reason: 'expired' | 'signed-out'): void {
    this.write(stream, `event: ended\ndata: ${JSON.stringify({ reason, message: streamEnded(reason) })}\n\n`);
    this.close(stream);
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
      this.sendUnread(machine, storeKey, state);
      return;
    }
    const read = { again: false, state };
    this.reading.set(storeKey, read);
    void this.readAndSend(machine, storeKey, read);
  }

  /**
   * Reads and sends until no transition of the instance came in meanwhile. A failed read (the
   * store is down) still moves the list rows of the pages that see every instance, with the
   * state the bus carried; it is logged at most once every {@link READ_WARN_INTERVAL_MS}.
   */
  private async readAndSend(machine: string, key: string, read: { again: boolean; state: string | null }): Promise<void> {
    try {
      do {
        read.again = false;
        await this.send(machine, key);
      } while (read.again);
    } catch (error) {
      this.sendUnread(machine, key, read.state);
      if (Date.now() - this.warnedAt >= READ_WARN_INTERVAL_MS) {
        this.warnedAt = Date.now();
        this.logger.warn(liveReadFailed(machine, error));
      }
    } finally {
      this.reading.delete(key);
    }
  }

  /** Reads the instance once and sends its list row to the list streams and its whole page state to its instance streams, each as its viewer may see it. */
  private async send(machine: string, key: string): Promise<void> {
    const instanceStreams = [...this.streams].filter((stream) => !stream.scope.list && stream.scope.key === key);
    const known = this.data.catalog.machine(machine);
    const snapshot = await this.store.load(key);
    const [history, deadlines] = await Promise.all([
      instanceStreams.length ? this.store.recentHistory(key, this.options.historyLimit) : undefined,
      snapshot ? this.data.deadlines(machine, key, snapshot) : [],
    ]);
    const seen = snapshot ?? this.remembered.get(key);
    this.remember(key, snapshot);
    const row = this.row(machine, key, snapshot, deadlines[0]);
    this.sendRow(row, (viewer) => Boolean(known && mayView(viewer, known.machine, key, seen)));
    if (!instanceStreams.length) return;
    const page = {
      ...row,
      summary: (known && snapshot && summaryOf(known, snapshot)) ?? '',
      marks: known ? diagramMarks(known.machine, snapshot?.state) : { current: [], within: [] },
      history: this.data.named(machine, [...(history?.entries ?? [])].reverse()),
      deadlines: deadlines.map((deadline) => ({
        ...deadline,
        attemptsText: deadlineAttempts(deadline.attempts),
        inText: relativeTime(Date.parse(deadline.dueAt) - Date.now()),
      })),
      context: contextText(snapshot?.context),
    };
    const instanceMessage = `event: transition\ndata: ${JSON.stringify(page)}\n\n`;
    for (const stream of instanceStreams) {
      if (!this.streams.has(stream)) continue;
      // A page whose viewer may no longer see the instance (it is gone: it saw it before) gets nothing more.
      if (snapshot && known && !mayView(stream.viewer, known.machine, key, snapshot)) this.close(stream);
      else this.write(stream, instanceMessage);
    }
  }

  /** A transition not read (a burst, or the store is down): its row as the bus carried it, to the pages that see every instance. */
  private sendUnread(machine: string, key: string, state: string | null): void {
    const row = {
      ...this.row(machine, key, undefined, undefined),
      state,
      final: this.data.catalog.isFinal(machine, state),
      waiting: this.data.catalog.isWaiting(machine, state),
      owner: undefined,
      team: undefined,
      updatedAt: new Date().toISOString(),
    };
    this.sendRow(row, () => false);
  }

  /** A list row's update, as read (`undefined`: the instance ended). */
  private row(machine: string, key: string, snapshot: WorkflowSnapshot | undefined, deadline: ConsoleListRow['deadline']): StreamRow {
    const summary = { key, machine, state: snapshot?.state ?? '', updatedAt: snapshot?.updatedAt ?? '' };
    const read = this.data.row({ ...summary, ...(snapshot?.owner == null ? {} : { owner: snapshot.owner }) }, snapshot, deadline);
    return {
      machine,
      instance: consoleInstanceId(key),
      href: consoleInstancePath(this.options.path, machine, key),
      state: snapshot?.state ?? null,
      final: read.final,
      waiting: read.waiting,
      summary: read.summary ?? '',
      owner: snapshot ? (snapshot.owner ?? '') : undefined,
      team: snapshot ? (snapshot.team ?? '') : undefined,
      updatedAt: snapshot?.updatedAt,
      ...(deadline && { deadline, deadlineIn: relativeTime(Date.parse(deadline.dueAt) - Date.now()) }),
    };
  }

  /** Sends `row` to the list streams that show its machine, when their viewer sees every instance or `visible` says it may see this one. */
  private sendRow(row: StreamRow, visible: (viewer: ConsoleViewer) => boolean): void {
    const message = `event: transition\ndata: ${JSON.stringify(row)}\n\n`;
    for (const stream of this.streams) {
      if (!stream.scope.list || (stream.scope.machine !== undefined && stream.scope.machine !== row.machine)) continue;
      if (stream.viewer.kind === 'all' || visible(stream.viewer)) this.write(stream, message);
    }
  }

  private remember(key: string, snapshot: WorkflowSnapshot | undefined): void {
    this.remembered.delete(key);
    if (!snapshot) return;
    this.remembered.set(key, snapshot);
    if (this.remembered.size > REMEMBERED_INSTANCES) this.remembered.delete(this.remembered.keys().next().value!);
  }

  private follows(scope: ConsoleStreamScope, machine: string, key: string): boolean {
    return scope.list ? scope.machine === undefined || scope.machine === machine : scope.key === key;
  }
}
