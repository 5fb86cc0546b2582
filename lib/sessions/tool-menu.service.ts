import { Inject, Injectable } from '@nestjs/common';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { grantsSignature, permits, type McpGrants } from '../access/access-requirement.js';
import type { McpHandlerDefinition } from '../registry/mcp-tool-definition.interface.js';
import type { McpPromptDefinition } from '../registry/mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import { McpPrimitiveRegistry } from '../registry/mcp-primitive.registry.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { WorkflowInstanceRef } from '../gating/workflow-step-values.js';
import { UnknownStateReporter } from '../gating/unknown-state.reporter.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import { WORKFLOW_GATE_OPTIONS, type WorkflowGateOptions } from '../gating/workflow-gate-options.interface.js';
import { MCP_SESSION_OPTIONS, type McpResolvedSessionOptions } from './session-options.interface.js';
import { McpInstanceFollowers } from './mcp-instance-followers.js';
import { McpInstanceStates } from './mcp-instance-states.js';
import { McpSessionFollows } from './mcp-session-follows.js';
import { McpWaitingDecisions } from './mcp-waiting-decisions.js';
import { McpMenuViews } from './mcp-menu-views.js';
import type { McpSession } from './mcp-session.js';
import { LIST_KINDS, type McpListKind, type McpMenuEntry, type McpMenuMachine } from './menu-visibility.js';

/** The notification that tells a client one list of its menu changed. */
export const LIST_CHANGED = {
  tools: 'notifications/tools/list_changed',
  prompts: 'notifications/prompts/list_changed',
  resources: 'notifications/resources/list_changed',
} as const satisfies Record<McpListKind, string>;

export type { McpListKind };

/**
 * Follows each session's instances and tells which lists of its menu changed: its
 * session-keyed instances, the live handles it started or used (it stops following a handle
 * whose instance is gone, or has ended in a final state no tool is bound to), their last
 * known states, and the menu it was last shown. What a menu shows is worked out by
 * {@link McpMenuViews}; an instance in a state its machine does not know contributes
 * nothing.
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
  private readonly menuMachines: ReadonlyMap<string, McpMenuMachine>;
  private readonly views: McpMenuViews;
  /** Each session's last listed tools, with what they were worked out from: its known states (their version) and its grants. */
  private readonly listed = new WeakMap<
    McpSession,
    { version: number; grants: McpGrants; decisions: ReadonlySet<string> | undefined; tools: readonly McpMenuEntry[] }
  >();

  constructor(
    @Inject(WORKFLOW_GATE_OPTIONS) private readonly options: WorkflowGateOptions,
    @Inject(MCP_SESSION_OPTIONS) sessionOptions: McpResolvedSessionOptions,
    toolRegistry: McpToolRegistry,
    primitives: McpPrimitiveRegistry,
    machines: McpMachineRegistry,
    unknownStates: UnknownStateReporter,
    private readonly follows: McpSessionFollows,
    private readonly states: McpInstanceStates,
    private readonly decisions: McpWaitingDecisions,
  ) {
    this.followers = new McpInstanceFollowers(sessionOptions.maxFollowersPerInstance);
    this.sessionMachines = machines.ids().filter((id) => !machines.machine(id).stateHandleKey);
    this.menuMachines = new Map(
      machines.ids().map((id) => {
        const engine = machines.engine(id);
        return [id, { engine, initial: engine.initial().state, handleKeyed: Boolean(machines.machine(id).stateHandleKey) }];
      }),
    );
    this.views = new McpMenuViews(this.menuMachines, toolRegistry, primitives, unknownStates, options.handleToolsMenu);
  }

  /**
   * The tools of the session's menu, as `tools/list` shows them to `authInfo`'s caller; reads the
   * store once (and what waits: {@link McpWaitingDecisions}). The same list (the one of its
   * distinct view, shared by every session shown the same menu) while nothing the menu depends on
   * changed since the session's last list: its known states, its grants, what waits for it.
   */
  async tools(session: McpSession, authInfo?: AuthInfo): Promise<readonly McpMenuEntry[]> {
    await this.refresh(session);
    const view = this.views.of(session);
    // A stateless menu (or `handleToolsMenu: 'all'`) lists every handle-keyed tool the caller may use already.
    const everyTool = session.kind === 'stateless' || this.options.handleToolsMenu === 'all';
    const decisions = everyTool ? undefined : await this.decisions.of(authInfo, session.grants, view.states);
    session.decisions = decisions;
    const { version } = session.knownStates;
    const last = this.listed.get(session);
    if (last?.version === version && last.grants === session.grants && last.decisions === decisions && session.lastMenu) {
      return last.tools;
    }
    const { tools, signature } = this.views.visibility.menu({ ...view, decisions });
    session.lastMenu = signature;
    this.listed.set(session, { version, grants: session.grants, decisions, tools });
    return tools;
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
    session.lastMenu = this.views.signature(session);
  }

  /**
   * Follows instance `storeKey`, which the session follows according to its record, learnt
   * elsewhere (its state is read, or told, next); `false` when the session is not indexed for
   * it (a key of no handle-keyed machine of this server, or the instance's followers bound).
   */
  adopt(session: McpSession, storeKey: string): boolean {
    const { machine, scope } = parseInstanceKey(storeKey);
    if (scope !== 'handle' || !this.menuMachines.get(machine)?.handleKeyed) {
      return false;
    }
    session.handles.add(storeKey);
    return this.followers.follow(session, storeKey);
  }

  /** The prompts of the session's menu (`prompts/list`); reads the store once. */
  async prompts(session: McpSession): Promise<McpPromptDefinition[]> {
    await this.refresh(session);
    const view = this.views.of(session);
    session.lastMenu = this.views.visibility.signature(view);
    return this.views.visibility.prompts(view);
  }

  /** The resources and resource templates of the session's menu (`resources/list`, `resources/templates/list`); reads the store once. */
  async resources(session: McpSession): Promise<McpResourceDefinition[]> {
    await this.refresh(session);
    const view = this.views.of(session);
    session.lastMenu = this.views.visibility.signature(view);
    return this.views.visibility.resources(view);
  }

  /** Whether a prompt or resource is in the session's menu as last refreshed (completions answer only for those); in the 2026-07-28 era, whatever the caller may use. */
  shows(session: McpSession, definition: McpHandlerDefinition): boolean {
    return session.kind === 'modern'
      ? permits(definition.access, session.grants)
      : this.views.visibility.isVisible(this.views.of(session), definition);
  }

  /**
   * Records what a call of this session found its instance in (`null`: the instance ended);
   * the lists of the session's menu that changed since they were last shown or told. Resolves
   * once a handle the session started or stopped following is stored with its record (`followed`:
   * the call that started the instance stored it already).
   */
  async observe(
    session: McpSession,
    instance: Pick<WorkflowInstanceRef, 'machine' | 'storeKey' | 'scope'>,
    state: string | null,
    followed?: true,
  ): Promise<McpListKind[]> {
    this.states.observed(instance.storeKey, state);
    if (this.alreadyKnown(session, instance, state)) {
      return [];
    }
    // A state the call found now: the session's oldest known state is no older than it was.
    session.statesKnownAt = Math.min(session.statesKnownAt ?? Infinity, Date.now());
    session.lastMenu ??= this.views.signature(session);
    const { storeKey } = instance;
    let stored: Promise<void> | undefined;
    if (instance.scope !== 'handle') {
      // The session keeps following its own instance: a new one starts implicitly.
      this.recordState(session, storeKey, state);
    } else if (state === null || this.ended(storeKey, state)) {
      stored = this.unfollow(session, storeKey);
    } else {
      stored = this.follow(session, storeKey, state, followed);
    }
    const before = session.lastMenu;
    const after = this.views.signature(session);
    session.lastMenu = after;
    await stored;
    return LIST_KINDS.filter((_, index) => before[index] !== after[index]);
  }

  /**
   * Reads again the states of the instances the session follows (transitions of them may have
   * been missed); the lists of its menu that changed since it was last shown or told.
   */
  async recheck(session: McpSession): Promise<McpListKind[]> {
    const before = session.lastMenu ?? this.views.signature(session);
    await this.refresh(session, true, true);
    const after = this.views.signature(session);
    session.lastMenu = after;
    return LIST_KINDS.filter((_, index) => before[index] !== after[index]);
  }

  /**
   * Records what the session's caller holds now (its latest request's token: a step-up brings
   * more scopes, an older token fewer); the lists of its menu that changed since they were
   * last shown or told. The first grants a process learns (a session opened, or rebuilt from
   * its record here) change nothing the client was told. No store is read.
   */
  regrant(session: McpSession, grants: McpGrants): McpListKind[] {
    const before = session.lastMenu;
    const first = !session.granted;
    const same = grants === session.grants || grantsSignature(grants) === grantsSignature(session.grants);
    session.grants = grants;
    session.granted = true;
    if (before === undefined || (same && !first)) {
      return [];
    }
    const after = this.views.signature(session);
    session.lastMenu = after;
    return first ? [] : LIST_KINDS.filter((_, index) => before[index] !== after[index]);
  }

  /** Whether the session follows an instance of one of `machines` (of any machine, when `undefined`). */
  followsAny(session: McpSession, machines: readonly string[] | undefined): boolean {
    const keys = this.instanceKeys(session);
    return machines === undefined ? keys.length > 0 : keys.some((key) => machines.includes(parseInstanceKey(key).machine));
  }

  /**
   * Brings the states of the session's instances up to date (see docs/deployment.md#menus-from-memory-statecache):
   * with `stateCache`, only those that changed since it last did (all of them the first time,
   * when `fresh`, or once the oldest is older than `maxAgeMs`), from the process's cache or the
   * store; without, all of them from the store. With `fromRecord`, also the handles its record
   * says it follows, learnt on other processes. Stops following handles that are gone or ended.
   */
  private async refresh(session: McpSession, fromRecord = true, fresh = false): Promise<void> {
    const { options } = this.states;
    const epoch = this.states.epoch;
    const expired = session.statesKnownAt !== undefined && Date.now() - session.statesKnownAt > options.maxAgeMs;
    // A refresh because the oldest state aged reads them all again, so they age together.
    fresh ||= expired;
    const changed = fresh ? undefined : this.states.changedSince(session.statesEpoch);
    const keys = changed === undefined ? this.instanceKeys(session) : changed.filter((key) => this.followsKey(session, key));
    session.statesEpoch = epoch;
    const [read, stored] = await Promise.all([this.states.states(keys, fresh), fromRecord ? this.storedHandles(session) : undefined]);
    const unknown = (stored ?? []).filter((key) => !session.handles.has(key));
    for (const key of unknown) {
      this.adopt(session, key);
    }
    const learnt = unknown.filter((key) => session.handles.has(key));
    const { states } = read;
    let oldest = read.oldest;
    if (learnt.length > 0) {
      const more = await this.states.states(learnt, fresh);
      more.states.forEach((state, key) => states.set(key, state));
      oldest = Math.min(oldest, more.oldest);
    }
    if (changed === undefined) {
      session.knownStates.replace(states);
      session.statesKnownAt = oldest;
    } else {
      session.statesKnownAt = Math.min(session.statesKnownAt ?? oldest, oldest);
    }
    const dropped: Promise<void>[] = [];
    for (const key of changed === undefined ? session.handles : [...keys, ...learnt]) {
      const state = states.get(key);
      if (session.handles.has(key) && (state === undefined || this.ended(key, state))) {
        dropped.push(this.unfollow(session, key));
      } else if (changed !== undefined) {
        this.recordState(session, key, state ?? null);
      }
    }
    await Promise.all(dropped);
  }

  /**
   * The handles the session's record follows, when they may differ from those known here: with
   * `stateCache` off, always read; on, only when other processes may serve the session and the
   * record's count of them differs (no other process could have added one otherwise).
   */
  private async storedHandles(session: McpSession): Promise<string[] | undefined> {
    const { enabled, sharedSessions } = this.states.options;
    if (enabled && (!sharedSessions || !(await this.follows.differs(session, session.handles.size)))) {
      return undefined;
    }
    return this.follows.stored(session);
  }

  /** Whether instance `storeKey` is one the session follows: one of its handles, or its own instance of a session-keyed machine. */
  private followsKey(session: McpSession, storeKey: string): boolean {
    return session.handles.has(storeKey) || this.sessionMachines.some((machine) => session.sessionStoreKey(machine) === storeKey);
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

  /**
   * Whether a live session here may follow instance `storeKey` without being indexed for it: it
   * started following it on another process (another process may serve this process's
   * sessions, unless `stateCache` says none changes the store), or the followers bound left it out.
   */
  mayMissFollowers(storeKey: string): boolean {
    const { enabled, sharedSessions } = this.states.options;
    return !enabled || sharedSessions || this.followers.leftOut(storeKey);
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
    { storeKey, scope }: Pick<WorkflowInstanceRef, 'storeKey' | 'scope'>,
    state: string | null,
  ): boolean {
    return state !== null && session.knownStates.get(storeKey) === state && (scope !== 'handle' || session.handles.has(storeKey));
  }

  private recordState(session: McpSession, storeKey: string, state: string | null): void {
    if (state === null) {
      session.knownStates.delete(storeKey);
    } else {
      session.knownStates.set(storeKey, state);
    }
  }

  /** Follows a handle-keyed instance, known to be in `state`; resolves once a new follow is stored with the session (at once when it is `stored` already). */
  private follow(session: McpSession, storeKey: string, state: string, stored?: true): Promise<void> | undefined {
    session.knownStates.set(storeKey, state);
    if (session.handles.has(storeKey)) {
      return undefined;
    }
    session.handles.add(storeKey);
    this.followers.follow(session, storeKey);
    return stored ? undefined : this.follows.record(session, storeKey, true);
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
    return this.views.visibility.ended(parseInstanceKey(storeKey).machine, state);
  }

  /** Store keys of every instance the session follows: its session-keyed ones, then its handles. */
  private instanceKeys(session: McpSession): string[] {
    const sessionKeys = session.scope ? this.sessionMachines.map((id) => session.sessionStoreKey(id)!) : [];
    return [...sessionKeys, ...session.handles];
  }
}
