import { Inject, Injectable } from '@nestjs/common';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpHandlerDefinition, McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { FsmInstanceRef } from '../gating/fsm-call.js';
import { UnknownStateReporter } from '../gating/unknown-state.reporter.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStoreAdapter } from '../stores/fsm-store.adapter.js';
import { FSM_GATE_OPTIONS, type FsmGateOptions } from '../gating/fsm-gate-options.interface.js';
import { MCP_SESSION_OPTIONS, type McpResolvedSessionOptions } from '../options/mcp-resolved-options.interface.js';
import { McpInstanceFollowers } from './mcp-instance-followers.js';
import { McpSessionFollows } from './mcp-session-follows.js';
import { handleRetention } from '../protocol/protocol.messages.js';
import type { McpSession } from './mcp-session.js';

/** One entry of a session's tool menu. */
interface MenuEntry {
  tool: McpToolDefinition;
  compact: boolean;
}

/** The lists of a session's menu, each with its own `list_changed` notification. */
export type McpListKind = 'tools' | 'prompts' | 'resources';

const LIST_KINDS: readonly McpListKind[] = ['tools', 'prompts', 'resources'];

/** The notification that tells a client one list of its menu changed. */
export const LIST_CHANGED = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
} as const satisfies Record<McpListKind, string>;

/**
 * Computes each session's menu: tools of its session-keyed instances' states,
 * tools allowed for any live handle it started or used, start tools and unbound tools.
 * The initial state shows `compactDescription`. A session stops following a handle whose
 * instance is gone, or has ended in a final state that no tool is bound to; an instance in a
 * state the machine does not know contributes nothing.
 *
 * It also indexes the tracked (live, registered) sessions by the instances they follow, and
 * is the only writer of `McpSession.handles`, so the index changes with them, and so do the
 * handles stored with a stateful session's record (which every process reads when it lists).
 */
@Injectable()
export class ToolMenuService {
  private readonly followers: McpInstanceFollowers;
  /** Machines without a handle key: every session with a scope follows its own instance of each. */
  private readonly sessionMachines: string[];

  constructor(
    @Inject(FSM_GATE_OPTIONS) private readonly options: FsmGateOptions,
    @Inject(MCP_SESSION_OPTIONS) sessionOptions: McpResolvedSessionOptions,
    private readonly tools: McpToolRegistry,
    private readonly primitives: McpPrimitiveRegistry,
    private readonly machines: McpMachineRegistry,
    private readonly store: FsmStoreAdapter,
    private readonly unknownStates: UnknownStateReporter,
    private readonly follows: McpSessionFollows,
  ) {
    this.followers = new McpInstanceFollowers(sessionOptions.maxFollowersPerInstance);
    this.sessionMachines = machines.ids().filter((id) => !machines.machine(id).stateHandleKey);
  }

  /** The session's menu as `tools/list` returns it; reads the store once. */
  async list(session: McpSession): Promise<Tool[]> {
    await this.refresh(session);
    const menu = this.compute(session);
    session.lastMenu = this.signature(session, menu);
    return menu.map(({ tool, compact }) => this.toSdkTool(tool, compact));
  }

  /**
   * Starts a session rebuilt in this process from its record: follows the handles `stored` with
   * it, then reads the states of its instances, so the changes told to it start from them;
   * reads the workflow store once.
   */
  async prime(session: McpSession, stored: readonly string[]): Promise<void> {
    for (const storeKey of stored) {
      this.adopt(session, storeKey);
    }
    await this.refresh(session, false);
    session.lastMenu = this.signature(session);
  }

  /**
   * Follows instance `storeKey`, which the session follows according to its record, learnt
   * elsewhere (its state is read, or told, next); `false` when the session is not indexed for
   * it (a key of no handle-keyed machine of this server, or the instance's followers bound).
   */
  adopt(session: McpSession, storeKey: string): boolean {
    const { machine, scope } = parseInstanceKey(storeKey);
    if (scope !== 'handle' || !this.machines.has(machine) || !this.machines.machine(machine).stateHandleKey) {
      return false;
    }
    session.handles.add(storeKey);
    return this.followers.follow(session, storeKey);
  }

  /** The prompts `prompts/list` shows the session; reads the store once. */
  async prompts(session: McpSession): Promise<Prompt[]> {
    await this.refresh(session);
    session.lastMenu = this.signature(session);
    return this.primitives
      .prompts()
      .filter((prompt) => this.isVisible(session, prompt))
      .map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }));
  }

  /** The fixed resources (`resources/list`) or the templates (`resources/templates/list`) shown to the session; reads the store once. */
  async resources(session: McpSession, which: 'fixed'): Promise<Resource[]>;
  async resources(session: McpSession, which: 'templates'): Promise<ResourceTemplate[]>;
  async resources(session: McpSession, which: 'fixed' | 'templates'): Promise<Resource[] | ResourceTemplate[]> {
    await this.refresh(session);
    session.lastMenu = this.signature(session);
    const visible = this.primitives.resources().filter((resource) => this.isVisible(session, resource));
    return which === 'fixed'
      ? visible.filter((r) => r.uri !== undefined).map((r) => ({ uri: r.uri!, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType }))
      : visible
          .filter((r) => r.template !== undefined)
          .map((r) => ({ uriTemplate: r.template!.toString(), name: r.name, title: r.title, description: r.description, mimeType: r.mimeType }));
  }

  /** Whether a prompt or resource is in the session's menu as last refreshed (completions answer only for those); everything is, in the 2026-07-28 era. */
  shows(session: McpSession, definition: McpHandlerDefinition): boolean {
    return session.kind === 'modern' || this.isVisible(session, definition);
  }

  /**
   * Every tool, prompt and resource as the 2026-07-28 era lists them: the same for every
   * caller, in declaration order, calls still gated. A start tool's description says how long
   * its handle stays valid (SEP-2567).
   */
  catalog(): { tools: Tool[]; prompts: Prompt[]; resources: Resource[]; resourceTemplates: ResourceTemplate[] } {
    const resources = this.primitives.resources();
    return {
      tools: this.tools.all().map((tool) => this.toSdkTool(tool, false, true)),
      prompts: this.primitives.prompts().map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })),
      resources: resources.filter((r) => r.uri !== undefined).map((r) => ({ uri: r.uri!, name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })),
      resourceTemplates: resources
        .filter((r) => r.template !== undefined)
        .map((r) => ({ uriTemplate: r.template!.toString(), name: r.name, title: r.title, description: r.description, mimeType: r.mimeType })),
    };
  }

  /**
   * Records what a call of this session found its instance in (`null`: the instance ended);
   * the lists of the session's menu that changed since they were last shown or told. Resolves
   * once a handle the session started or stopped following is stored with its record.
   */
  async observe(session: McpSession, instance: Pick<FsmInstanceRef, 'machine' | 'storeKey' | 'scope'>, state: string | null): Promise<McpListKind[]> {
    if (this.alreadyKnown(session, instance, state)) {
      return [];
    }
    session.lastMenu ??= this.signature(session);
    const { storeKey } = instance;
    let stored: Promise<void> | undefined;
    if (instance.scope !== 'handle') {
      // The session keeps following its own instance: a new one starts implicitly.
      this.recordState(session, storeKey, state);
    } else if (state === null || this.ended(storeKey, state)) {
      stored = this.unfollow(session, storeKey);
    } else {
      stored = this.follow(session, storeKey, state);
    }
    const before = session.lastMenu;
    const after = this.signature(session);
    session.lastMenu = after;
    await stored;
    return LIST_KINDS.filter((_, index) => before[index] !== after[index]);
  }

  /**
   * Reads again the states of the instances the session follows (transitions of them may have
   * been missed); the lists of its menu that changed since it was last shown or told.
   */
  async recheck(session: McpSession): Promise<McpListKind[]> {
    const before = session.lastMenu ?? this.signature(session);
    await this.refresh(session);
    const after = this.signature(session);
    session.lastMenu = after;
    return LIST_KINDS.filter((_, index) => before[index] !== after[index]);
  }

  /** Whether the session follows an instance of one of `machines` (of any machine, when `undefined`). */
  followsAny(session: McpSession, machines: readonly string[] | undefined): boolean {
    const keys = this.instanceKeys(session);
    return machines === undefined ? keys.length > 0 : keys.some((key) => machines.includes(parseInstanceKey(key).machine));
  }

  /**
   * Reads the states of the session's instances, with (`fromRecord`) the handles its record
   * says it follows, learnt on other processes; stops following handles that are gone or ended.
   * The record and the states of the handles known here are read at once.
   */
  private async refresh(session: McpSession, fromRecord = true): Promise<void> {
    const keys = this.instanceKeys(session);
    const [states, stored] = await Promise.all([
      keys.length === 0 ? new Map<string, string>() : this.store.loadStates(keys),
      fromRecord ? this.follows.stored(session) : undefined,
    ]);
    const unknown = (stored ?? []).filter((key) => !session.handles.has(key));
    for (const key of unknown) {
      this.adopt(session, key);
    }
    const learnt = unknown.filter((key) => session.handles.has(key));
    if (learnt.length > 0) {
      for (const [key, state] of await this.store.loadStates(learnt)) {
        states.set(key, state);
      }
    }
    session.knownStates.clear();
    for (const [key, state] of states) {
      session.knownStates.set(key, state);
    }
    const dropped: Promise<void>[] = [];
    for (const key of session.handles) {
      const state = states.get(key);
      if (state === undefined || this.ended(key, state)) {
        dropped.push(this.unfollow(session, key));
      }
    }
    await Promise.all(dropped);
  }

  /** A change made elsewhere: applies only to instances this session follows; the lists of its menu that changed. */
  async applyTransition(session: McpSession, machine: string, storeKey: string, state: string | null): Promise<McpListKind[]> {
    const scope = session.handles.has(storeKey) ? 'handle' : session.sessionStoreKey(machine) === storeKey ? 'session' : undefined;
    return scope === undefined ? [] : this.observe(session, { machine, storeKey, scope }, state);
  }

  /**
   * Starts indexing a live session by the instances it follows, so the transitions of those
   * instances reach it through {@link followersOf}; until {@link untrack}.
   */
  track(session: McpSession): void {
    this.followers.add(session, this.instanceKeys(session));
  }

  /** Records a `resources/subscribe` to `uri`, which shows instance `storeKey`: its transitions reach the session. */
  subscribe(session: McpSession, storeKey: string, uri: string): void {
    session.subscriptions ??= new Map();
    const uris = session.subscriptions.get(storeKey) ?? new Set<string>();
    uris.add(uri);
    session.subscriptions.set(storeKey, uris);
    this.followers.follow(session, storeKey);
  }

  /** Forgets a subscription to `uri` (whatever instance it showed). */
  unsubscribe(session: McpSession, uri: string): void {
    for (const [storeKey, uris] of session.subscriptions ?? []) {
      if (uris.delete(uri) && uris.size === 0) {
        session.subscriptions!.delete(storeKey);
        if (!session.handles.has(storeKey) && !this.sessionMachines.some((machine) => session.sessionStoreKey(machine) === storeKey)) {
          this.followers.unfollow(session, storeKey);
        }
      }
    }
  }

  /** Stops indexing a session (closed or evicted). */
  untrack(session: McpSession): void {
    this.followers.remove(session);
  }

  /** The tracked sessions that follow instance `storeKey`: the only ones a change of it can concern. */
  followersOf(storeKey: string): ReadonlySet<McpSession> {
    return this.followers.followers(storeKey);
  }

  /**
   * Whether the session already knows `instance` in `state` with the same membership, so its
   * menu cannot have changed. The menu was computed from these known states when it was last
   * shown or told (`list` and `observe` keep `lastMenu` in step), so no recomputation is needed.
   */
  private alreadyKnown(
    session: McpSession,
    { storeKey, scope }: Pick<FsmInstanceRef, 'storeKey' | 'scope'>,
    state: string | null,
  ): boolean {
    return (
      state !== null &&
      session.knownStates.get(storeKey) === state &&
      (scope !== 'handle' || session.handles.has(storeKey))
    );
  }

  private recordState(session: McpSession, storeKey: string, state: string | null): void {
    if (state === null) {
      session.knownStates.delete(storeKey);
    } else {
      session.knownStates.set(storeKey, state);
    }
  }

  /** Follows a handle-keyed instance, known to be in `state`; resolves once a new follow is stored with the session. */
  private follow(session: McpSession, storeKey: string, state: string): Promise<void> | undefined {
    session.knownStates.set(storeKey, state);
    if (session.handles.has(storeKey)) {
      return undefined;
    }
    session.handles.add(storeKey);
    this.followers.follow(session, storeKey);
    return this.follows.record(session, storeKey, true);
  }

  /**
   * Stops following a handle-keyed instance (gone, or ended); a subscription to it keeps its
   * transitions coming. Resolves once that is stored with the session.
   */
  private unfollow(session: McpSession, storeKey: string): Promise<void> {
    session.handles.delete(storeKey);
    session.knownStates.delete(storeKey);
    if (!session.subscriptions?.has(storeKey)) {
      this.followers.unfollow(session, storeKey);
    }
    return this.follows.record(session, storeKey, false);
  }

  /** Whether a handle instance in `state` has ended for menus: a final state no tool is bound to. */
  private ended(storeKey: string, state: string): boolean {
    const { machine } = parseInstanceKey(storeKey);
    const engine = this.machines.engine(machine);
    if (!engine.knows(state) || !engine.isFinal(state)) {
      return false;
    }
    return !this.tools
      .all()
      .some((tool) => tool.binding?.machine === machine && tool.binding.states.some((bound) => engine.matches(state, bound)));
  }

  /** Store keys of every instance the session follows: its session-keyed ones, then its handles. */
  private instanceKeys(session: McpSession): string[] {
    const sessionKeys = session.scope ? this.sessionMachines.map((id) => session.sessionStoreKey(id)!) : [];
    return [...sessionKeys, ...session.handles];
  }

  private compute(session: McpSession): MenuEntry[] {
    const entries: MenuEntry[] = [];
    for (const tool of this.tools.all()) {
      const machine = tool.binding?.machine ?? tool.start?.machine ?? tool.workflow;
      if (!machine) {
        entries.push({ tool, compact: false });
        continue;
      }
      const states = this.instanceStates(session, machine);
      const initial = this.machines.engine(machine).initial().state;
      const compact = Boolean(tool.compactDescription) && states.every((state) => state === initial);
      if (this.isVisibleIn(session, tool, machine, states)) {
        entries.push({ tool, compact });
      }
    }
    return entries;
  }

  /** Known states of the session's instances of `machine` (its session instance, or the handles it follows). */
  private instanceStates(session: McpSession, machine: string): string[] {
    const engine = this.machines.engine(machine);
    const known = (key: string, state: string | undefined): state is string => {
      if (state === undefined || engine.knows(state)) {
        return state !== undefined;
      }
      this.unknownStates.report(machine, state, key);
      return false;
    };
    if (this.machines.machine(machine).stateHandleKey) {
      return [...session.handles]
        .filter((key) => parseInstanceKey(key).machine === machine)
        .map((key) => [key, session.knownStates.get(key)] as const)
        .filter((entry): entry is readonly [string, string] => known(entry[0], entry[1]))
        .map(([, state]) => state);
    }
    const key = session.sessionStoreKey(machine);
    if (key === undefined) {
      return [];
    }
    const state = session.knownStates.get(key) ?? engine.initial().state;
    return known(key, state) ? [state] : [];
  }

  /** Whether an unbound handler, or a bound one whose states an instance of the session is in, is in its menu. */
  private isVisible(session: McpSession, definition: McpHandlerDefinition): boolean {
    const machine = definition.binding?.machine;
    return machine === undefined || this.isVisibleIn(session, definition, machine, this.instanceStates(session, machine));
  }

  private isVisibleIn(session: McpSession, tool: McpHandlerDefinition, machine: string, states: string[]): boolean {
    if (!tool.binding) {
      return true;
    }
    if (this.machines.machine(machine).stateHandleKey && (session.kind === 'stateless' || this.options.handleToolsMenu === 'all')) {
      return true;
    }
    const engine = this.machines.engine(machine);
    return states.some((state) => tool.binding!.states.some((bound) => engine.matches(state, bound)));
  }

  /** What the session is shown, one string per list kind (in `LIST_KINDS` order), to tell which lists changed. */
  private signature(session: McpSession, menu = this.compute(session)): readonly string[] {
    const names = (definitions: readonly McpHandlerDefinition[]) =>
      definitions
        .filter((definition) => this.isVisible(session, definition))
        .map((definition) => definition.name)
        .join('\n');
    return [menu.map(({ tool, compact }) => `${tool.name}${compact ? '~' : ''}`).join('\n'), names(this.primitives.prompts()), names(this.primitives.resources())];
  }

  /**
   * A tool as a list shows it. A start tool's description says how long its handle stays
   * valid when `statesRetention` (always in the 2026-07-28 era) or when retention is set.
   */
  private toSdkTool(tool: McpToolDefinition, compact: boolean, statesRetention = false): Tool {
    const { finishedMs, idleHandleMs } = this.options.retention;
    const description = compact ? tool.compactDescription : tool.description;
    const retention =
      tool.start && (statesRetention || finishedMs !== undefined || idleHandleMs !== undefined)
        ? ` ${handleRetention(tool.start.machine, tool.start.handleKey, this.options.retention)}`
        : '';
    return {
      name: tool.name,
      title: tool.title,
      description: `${description}${retention}`,
      inputSchema: tool.inputJsonSchema as Tool['inputSchema'],
      outputSchema: tool.outputJsonSchema as Tool['outputSchema'],
      annotations: tool.annotations,
    };
  }
}
