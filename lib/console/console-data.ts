import { Inject, Injectable } from '@nestjs/common';
import { waitingRequestOf } from '../gating/approval-request.js';
import { graphNodes, machineGraph, nodeAt, pathOf } from '../diagram/machine-graph.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpMachine } from '../machines/machine.interface.js';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from '../options/mcp-resolved-options.interface.js';
import type { WorkflowSnapshot } from '../stores/fsm-state-store.interface.js';
import type { WorkflowAttemptRecord } from '../stores/workflow-attempt.interface.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import type { WorkflowHistoryPage, WorkflowInstanceCursor, WorkflowInstanceSummary } from '../stores/workflow-state-reader.interface.js';
import { badCursor, searchTooLong, unknownMachine, unknownState } from './console.messages.js';
import type { WorkflowTransitionRecord } from '../stores/workflow-transition-record.interface.js';
import { consoleActor, deadlineName, type ConsoleActor } from './console-actors.js';
import { diagramMarks, type DiagramMarks } from './console-diagram.svg.js';
import { consoleStoreKey } from './console-instance-ref.js';

/** A machine as the console's filter offers it. */
export interface ConsoleMachine {
  id: string;
  /** Its states' dotted paths, in document order. */
  states: string[];
  /** Its final states' paths. */
  finals: string[];
}

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

/** One page of the list, or why the filter cannot be answered. */
export type ConsoleListView =
  | {
      ok: true;
      filter: ConsoleListFilter;
      instances: WorkflowInstanceSummary[];
      /** How many instances match the filter, up to {@link CONSOLE_COUNT_MAX}; `undefined` when the store cannot count. */
      total?: number;
      /** The stored values the state filter matches (a parent state matches its descendants); none: any state. */
      states?: string[];
      /** `after` of the next page's link. */
      next?: string;
    }
  | { ok: false; filter: ConsoleListFilter; error: string };

/** A history row with its actor named for people. */
export type ConsoleHistoryEntry = WorkflowTransitionRecord & { readonly actor: ConsoleActor };

/** A pending timer of an instance, as its page shows it. */
export interface ConsoleDeadline {
  readonly id: string;
  /** Its name for people (`authorizationTtl`, `expiry of payment.refund's request`). */
  readonly name: string;
  /** The event it sends (an expiry: the reject tool it runs as). */
  readonly event: string;
  /** When it is due (or, while a process fires it, when that claim lapses), ISO-8601. */
  readonly dueAt: string;
  /** Its failed firings so far. */
  readonly attempts: number;
}

/** One instance's page. */
export interface ConsoleInstanceView {
  machine: McpMachine;
  key: string;
  /** The instance part of its URL. */
  instance: string;
  snapshot?: WorkflowSnapshot;
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
  final: boolean;
}

/** What the console reads, from the store and the machines; every read bounded by the console's page sizes. */
@Injectable()
export class WorkflowConsoleData {
  private machineList?: ConsoleMachine[];

  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly consoleOptions: McpResolvedConsoleOptions | null,
    private readonly store: FsmStoreAdapter,
    private readonly registry: McpMachineRegistry,
  ) {}

  /** The machines this app serves, with their states (read from their graphs once). */
  machines(): readonly ConsoleMachine[] {
    this.machineList ??= this.registry.ids().map((id) => {
      const nodes = graphNodes(machineGraph(this.registry.machine(id))).filter((node) => node.parent && node.type !== 'history');
      return {
        id,
        states: nodes.map((node) => pathOf(node).join('.')),
        finals: nodes.filter((node) => node.type === 'final').map((node) => pathOf(node).join('.')),
      };
    });
    return this.machineList;
  }

  /** The machine with this id, when the app serves it. */
  machine(id: string): McpMachine | undefined {
    return this.registry.has(id) ? this.registry.machine(id) : undefined;
  }

  /** Whether `state` is a final state of `machine`. */
  isFinal(machine: string, state: string | null | undefined): boolean {
    return (
      state != null &&
      Boolean(
        this.machines()
          .find((known) => known.id === machine)
          ?.finals.includes(state),
      )
    );
  }

  /** One page of the list for `filter`. */
  async list(filter: ConsoleListFilter): Promise<ConsoleListView> {
    if (filter.machine !== undefined && !this.registry.has(filter.machine))
      return { ok: false, filter, error: unknownMachine(filter.machine) };
    const states = filter.state === undefined ? undefined : this.storedStates(filter.machine, filter.state);
    if (states?.length === 0) return { ok: false, filter, error: unknownState(filter.state!, filter.machine) };
    const after = filter.after === undefined ? undefined : decodeCursor(filter.after);
    if (after === null) return { ok: false, filter, error: badCursor() };
    const search = filter.search?.trim() || undefined;
    if (search !== undefined && search.length > MAX_SEARCH_LENGTH) return { ok: false, filter, error: searchTooLong(MAX_SEARCH_LENGTH) };
    const query = { machine: filter.machine, states, search };
    const [page, total] = await Promise.all([
      this.store.listInstances({ ...query, limit: this.options.pageSize, after }),
      this.store.countInstances({ ...query, max: CONSOLE_COUNT_MAX }),
    ]);
    return {
      ok: true,
      filter: { ...filter, search },
      instances: page.instances,
      total,
      states,
      next: page.next && encodeCursor(page.next),
    };
  }

  /** One instance's page: its snapshot (none when it is gone), recent history, pending deadlines and diagram marks. */
  async instance(machine: McpMachine, instance: string): Promise<ConsoleInstanceView> {
    const key = consoleStoreKey(machine, instance);
    const [snapshot, history, attempts, deadlines] = await Promise.all([
      this.store.load(key),
      this.store.recentHistory(key, this.options.historyLimit),
      this.store.recentAttempts(key, this.options.historyLimit),
      this.deadlines(machine.id, key),
    ]);
    const waiting = waitingRequestOf(snapshot, key);
    return {
      machine,
      key,
      instance,
      snapshot: snapshot && { ...snapshot, ...(waiting && { waiting }) },
      history: { ...history, entries: this.named(machine.id, history.entries) },
      deadlines,
      timersKept: this.store.supports.timers,
      attempts,
      attemptsKept: this.store.supports.attempts,
      marks: diagramMarks(machine, snapshot?.state),
      final: this.isFinal(machine.id, snapshot?.state),
    };
  }

  /** History rows with their actors named: a deadline by its timer's name, anyone else as recorded. */
  named(machine: string, entries: readonly WorkflowTransitionRecord[]): ConsoleHistoryEntry[] {
    const deadlines = this.registry.has(machine) ? this.registry.engine(machine).deadlines() : [];
    return entries.map((entry) => ({ ...entry, actor: consoleActor(entry.principal, deadlines) }));
  }

  /** The pending deadlines of the instance at `key`, earliest first. */
  async deadlines(machine: string, key: string): Promise<ConsoleDeadline[]> {
    const deadlines = this.registry.has(machine) ? this.registry.engine(machine).deadlines() : [];
    return (await this.store.pendingTimers(key)).map(({ id, event, dueAt, attempts }) => ({
      id,
      name: deadlineName(id, deadlines),
      event,
      dueAt: new Date(dueAt).toISOString(),
      attempts,
    }));
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
