import { Inject, Injectable } from '@nestjs/common';
import { waitingRequestOf } from '../gating/approval-request.js';
import { graphNodes, machineGraph, nodeAt, pathOf } from '../diagram/machine-graph.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from './console-options.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowAttemptRecord } from '../stores/workflow-attempt.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type {
  WorkflowHistoryPage,
  WorkflowInstanceCursor,
  WorkflowInstanceSummary,
  WorkflowStateCount,
} from '../stores/workflow-state-reader.interface.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import { badCursor, searchTooLong, unknownMachine, unknownState } from './console.messages.js';
import { consoleActor, type ConsoleActor } from './console-actors.js';
import { WorkflowConsoleCatalog, type ConsoleMachine } from './console-catalog.js';
import { consoleDeadlines, type ConsoleDeadline } from './console-deadlines.js';
import type { DiagramLayout } from './console-diagram.elk.js';
import { diagramMarks, type DiagramMarks } from './console-diagram.svg.js';
import { WorkflowConsoleDiagrams } from './console-diagrams.js';
import { consoleStoreKey } from './console-instance-ref.js';
import { judgedOneByOne, listViewerOf, mayView, type ConsoleViewer } from './console-viewer.js';

export type { ConsoleDeadline } from './console-deadlines.js';

/** The list's filter, from the query string. */
interface ConsoleListFilter {
  machine?: string;
  state?: string;
  after?: string;
  /** A handle (or its first characters) or an owner. */
  search?: string;
}

/** The total the list counts up to; beyond it the page says "at least". */
export const CONSOLE_COUNT_MAX = 10_000;
/** The longest search the list takes: no handle, session id or owner is longer. */
const MAX_SEARCH_LENGTH = 255;
/** The longest summary a row shows: one line. */
const MAX_SUMMARY_LENGTH = 160;

/** One row of the list: the instance, its machine's summary of it, whether it waits for a person, and its next deadline. */
export interface ConsoleListRow extends WorkflowInstanceSummary {
  readonly summary?: string;
  /** In a state where a call waits for a person. */
  readonly waiting: boolean;
  readonly final: boolean;
  /** Its earliest pending deadline. */
  readonly deadline?: ConsoleDeadline;
}

/** How many instances of one machine are in one state, and whether that state waits for a person. */
export interface ConsoleStateCount extends WorkflowStateCount {
  readonly waiting: boolean;
}

/** One page of the list, or why the filter cannot be answered. */
export type ConsoleListView =
  | {
      ok: true;
      filter: ConsoleListFilter;
      rows: ConsoleListRow[];
      /** How many instances match the filter, up to {@link CONSOLE_COUNT_MAX}; `undefined` when the store cannot count (or the viewer's rows are judged one by one). */
      total?: number;
      /** How many instances match the filter but its state in each machine and state, over at most {@link CONSOLE_COUNT_MAX}. */
      counts?: ConsoleStateCount[];
      /** The stored values the state filter matches (a parent state matches its descendants); none: any state. */
      states?: string[];
      /** `after` of the next page's link. */
      next?: string;
    }
  | { ok: false; filter: ConsoleListFilter; error: string };

/** A history row with its actor named for people. */
export type ConsoleHistoryEntry = WorkflowTransitionRecord & { readonly actor: ConsoleActor };

/** One instance's page. */
export interface ConsoleInstanceView {
  machine: ConsoleMachine;
  key: string;
  /** The instance part of its URL. */
  instance: string;
  snapshot?: WorkflowSnapshot;
  /** The machine's summary of it. */
  summary?: string;
  history: Omit<WorkflowHistoryPage, 'entries'> & { entries: ConsoleHistoryEntry[] };
  /** Its pending deadlines, earliest first (none when the store keeps no timers). */
  deadlines: ConsoleDeadline[];
  /** Whether the store keeps timers. */
  timersKept: boolean;
  /** Its most recent refused and declined calls, oldest first (none when the store keeps none). */
  attempts: WorkflowAttemptRecord[];
  /** Whether the store keeps attempts. */
  attemptsKept: boolean;
  marks: DiagramMarks;
  /** Whether it is in a state where a call waits for a person. */
  waiting: boolean;
  /** Its machine's diagram, laid out. */
  layout: DiagramLayout;
  final: boolean;
}

/** What the console reads, from the store and the machines, for one viewer; every read bounded by the console's page sizes. */
@Injectable()
export class WorkflowConsoleData {
  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly consoleOptions: McpResolvedConsoleOptions | null,
    private readonly store: FsmStoreAdapter,
    private readonly registry: McpMachineRegistry,
    readonly catalog: WorkflowConsoleCatalog,
    private readonly diagrams: WorkflowConsoleDiagrams,
  ) {}

  /** One page of the list for `filter`, as `viewer` may see it. */
  async list(filter: ConsoleListFilter, viewer: ConsoleViewer): Promise<ConsoleListView> {
    if (filter.machine !== undefined && !this.registry.has(filter.machine))
      return { ok: false, filter, error: unknownMachine(filter.machine) };
    const states = filter.state === undefined ? undefined : this.storedStates(filter.machine, filter.state);
    if (states?.length === 0) return { ok: false, filter, error: unknownState(filter.state!, filter.machine) };
    const after = filter.after === undefined ? undefined : decodeCursor(filter.after);
    if (after === null) return { ok: false, filter, error: badCursor() };
    const search = filter.search?.trim() || undefined;
    if (search !== undefined && search.length > MAX_SEARCH_LENGTH) return { ok: false, filter, error: searchTooLong(MAX_SEARCH_LENGTH) };
    const shown = this.catalog.machines().filter((known) => filter.machine === undefined || known.id === filter.machine);
    const judged = shown.some((known) => judgedOneByOne(viewer, known.machine));
    const base = {
      machine: filter.machine,
      search,
      viewer: listViewerOf(
        viewer,
        shown.map((known) => known.machine),
      ),
    };
    const [page, total, counts] = await Promise.all([
      this.store.listInstances({ ...base, states, limit: this.options.pageSize, after }),
      judged ? undefined : this.store.countInstances({ ...base, states, max: CONSOLE_COUNT_MAX }),
      judged ? undefined : this.store.countStates({ ...base, max: CONSOLE_COUNT_MAX }),
    ]);
    return {
      ok: true,
      filter: { ...filter, search },
      rows: await this.rows(page.instances, viewer),
      total,
      counts: counts?.map((count) => ({ ...count, waiting: this.catalog.isWaiting(count.machine, count.state) })),
      states,
      next: page.next && encodeCursor(page.next),
    };
  }

  /**
   * The list's rows of `instances` for `viewer`: with their machines' summaries (their contexts
   * read in one round trip, for the machines that summarise) and their earliest deadlines (one
   * read); the rows of a machine whose access is a function kept only when it opens them to `viewer`.
   */
  async rows(instances: readonly WorkflowInstanceSummary[], viewer: ConsoleViewer): Promise<ConsoleListRow[]> {
    const needsSnapshot = (instance: WorkflowInstanceSummary) => {
      const known = this.catalog.machine(instance.machine);
      return Boolean(known && (known.machine.summary || judgedOneByOne(viewer, known.machine)));
    };
    const [snapshots, timers] = await Promise.all([
      this.store.loadMany(instances.filter(needsSnapshot).map((instance) => instance.key)),
      this.store.pendingTimersOf(instances.map((instance) => instance.key)),
    ]);
    return instances.flatMap((instance) => {
      const known = this.catalog.machine(instance.machine);
      const snapshot = snapshots.get(instance.key);
      if (known && judgedOneByOne(viewer, known.machine) && !mayView(viewer, known.machine, instance.key, snapshot)) return [];
      const [deadline] = this.deadlinesOf(instance.machine, timers.get(instance.key) ?? [], snapshot);
      return [this.row(instance, snapshot, deadline)];
    });
  }

  /** One instance's page as `viewer` may see it: `undefined` when it may not (or the instance is gone and only history would show). */
  async instance(machine: ConsoleMachine, instance: string, viewer: ConsoleViewer): Promise<ConsoleInstanceView | undefined> {
    const key = consoleStoreKey(machine.machine, instance);
    const snapshot = await this.store.load(key);
    if (!mayView(viewer, machine.machine, key, snapshot)) return undefined;
    const [history, attempts, timers, layout] = await Promise.all([
      this.store.recentHistory(key, this.options.historyLimit),
      this.store.recentAttempts(key, this.options.historyLimit),
      this.store.pendingTimers(key),
      this.diagrams.layoutOf(machine.machine),
    ]);
    if (!snapshot && history.entries.length === 0) return undefined;
    const summary = snapshot && summaryOf(machine, snapshot);
    // A request 0.4 stored has no requestId of its own: it is read with the one derived for it.
    const waiting = waitingRequestOf(snapshot, key);
    return {
      machine,
      key,
      instance,
      snapshot: snapshot && { ...snapshot, ...(waiting && { waiting }) },
      ...(summary === undefined ? {} : { summary }),
      history: { ...history, entries: this.named(machine.id, history.entries) },
      deadlines: this.deadlinesOf(machine.id, timers, snapshot),
      timersKept: this.store.supports.timers,
      attempts,
      attemptsKept: this.store.supports.attempts,
      marks: diagramMarks(machine.machine, snapshot?.state),
      waiting: this.catalog.isWaiting(machine.id, snapshot?.state),
      layout,
      final: this.catalog.isFinal(machine.id, snapshot?.state),
    };
  }

  /** The instance at `instance` of `machine` as `viewer` may see it (stored now), with its store key; `undefined` when it may not. */
  async visible(
    machine: ConsoleMachine,
    instance: string,
    viewer: ConsoleViewer,
  ): Promise<{ key: string; snapshot?: WorkflowSnapshot } | undefined> {
    const key = consoleStoreKey(machine.machine, instance);
    if (viewer.kind === 'all') return { key, snapshot: await this.store.load(key) };
    const snapshot = await this.store.load(key);
    return mayView(viewer, machine.machine, key, snapshot) ? { key, snapshot } : undefined;
  }

  /** The list row of an instance read as `snapshot` (its summary from the context), with its earliest deadline. */
  row(instance: WorkflowInstanceSummary, snapshot: WorkflowSnapshot | undefined, deadline?: ConsoleDeadline): ConsoleListRow {
    const known = this.catalog.machine(instance.machine);
    const summary = known && snapshot && summaryOf(known, snapshot);
    return {
      ...instance,
      ...(summary === undefined ? {} : { summary }),
      waiting: this.catalog.isWaiting(instance.machine, instance.state),
      final: this.catalog.isFinal(instance.machine, instance.state),
      ...(deadline && { deadline }),
    };
  }

  /** History rows with their actors named: a deadline by its timer's name, anyone else as recorded. */
  named(machine: string, entries: readonly WorkflowTransitionRecord[]): ConsoleHistoryEntry[] {
    const deadlines = this.registry.has(machine) ? this.registry.engine(machine).deadlines() : [];
    return entries.map((entry) => ({ ...entry, actor: consoleActor(entry.principal, deadlines) }));
  }

  /** The pending deadlines of the instance at `key`, earliest first, as the console shows them. */
  async deadlines(machine: string, key: string, snapshot: WorkflowSnapshot | undefined): Promise<ConsoleDeadline[]> {
    return this.deadlinesOf(machine, await this.store.pendingTimers(key), snapshot);
  }

  private deadlinesOf(machine: string, timers: Parameters<typeof consoleDeadlines>[2], snapshot: WorkflowSnapshot | undefined) {
    const deadlines = this.registry.has(machine) ? this.registry.engine(machine).deadlines() : [];
    return consoleDeadlines(this.catalog.machine(machine), deadlines, timers, snapshot);
  }

  private get options(): McpResolvedConsoleOptions {
    return this.consoleOptions!;
  }

  /** The stored values a state filter matches: the state and its descendants, in the filtered machine or in any. */
  private storedStates(machine: string | undefined, state: string): string[] {
    const values = new Set<string>();
    for (const id of machine === undefined ? this.registry.ids() : [machine]) {
      const node = nodeAt(machineGraph(this.registry.machine(id)), state);
      if (node) for (const below of graphNodes(node)) if (below.type !== 'history') values.add(pathOf(below).join('.'));
    }
    return [...values];
  }
}

/** The machine's one line about an instance: `undefined` without a summary, or when it throws or answers no text. */
export function summaryOf(machine: ConsoleMachine, snapshot: Pick<WorkflowSnapshot, 'context'>): string | undefined {
  const { summary } = machine.machine;
  if (!summary) return undefined;
  try {
    const text: unknown = summary(snapshot.context ?? {});
    if (typeof text !== 'string') return undefined;
    const line = text.replace(/\s+/g, ' ').trim();
    return line === '' ? undefined : line.length > MAX_SUMMARY_LENGTH ? `${line.slice(0, MAX_SUMMARY_LENGTH - 1)}…` : line;
  } catch {
    return undefined;
  }
}

/** The `after` parameter of a page link: the cursor as base64url JSON. */
function encodeCursor(cursor: WorkflowInstanceCursor): string {
  return Buffer.from(JSON.stringify([cursor.updatedAt, cursor.key])).toString('base64url');
}

/** The cursor of an `after` parameter; `null` when it is not one {@link encodeCursor} wrote. */
function decodeCursor(after: string): WorkflowInstanceCursor | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(after, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      !Number.isNaN(Date.parse(value[0]))
    ) {
      return { updatedAt: value[0], key: value[1] };
    }
  } catch {
    // Not JSON: answered as a cursor this console did not write.
  }
  return null;
}
