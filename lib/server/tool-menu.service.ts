import { Inject, Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolDefinition } from '../tools/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../tools/mcp-tool.registry.js';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import type { FsmInstanceRef } from '../gating/fsm-call.js';
import { UnknownStateReporter } from '../gating/unknown-state.reporter.js';
import { isAtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import { parseInstanceKey } from '../stores/fsm-instance-key.js';
import { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import { MCP_RESOLVED_OPTIONS, type McpResolvedOptions } from '../mcp-options.resolver.js';
import type { McpSession } from './mcp-session.js';

/** One entry of a session's menu. */
interface MenuEntry {
  tool: McpToolDefinition;
  compact: boolean;
}

/**
 * Computes each session's menu (design §3): tools of its session-keyed instances' states,
 * tools allowed for any live handle it started or used, start tools and unbound tools.
 * The initial state shows `compactDescription`. A session stops following a handle whose
 * instance is gone, or has ended in a final state that no tool is bound to; an instance in a
 * state the machine does not know contributes nothing.
 */
@Injectable()
export class ToolMenuService {
  constructor(
    @Inject(MCP_RESOLVED_OPTIONS) private readonly options: McpResolvedOptions,
    private readonly tools: McpToolRegistry,
    private readonly machines: McpMachineRegistry,
    @Inject(FsmStateStore) private readonly store: FsmStateStore,
    private readonly unknownStates: UnknownStateReporter,
  ) {}

  /** The session's menu as `tools/list` returns it; reads the store once. */
  async list(session: McpSession): Promise<Tool[]> {
    const states = await this.loadStates(this.instanceKeys(session));
    session.knownStates.clear();
    for (const [key, state] of states) {
      session.knownStates.set(key, state);
    }
    for (const key of session.handles) {
      const state = states.get(key);
      if (state === undefined || this.ended(key, state)) {
        session.handles.delete(key);
        session.knownStates.delete(key);
      }
    }
    const menu = this.compute(session);
    session.lastMenu = this.signature(menu);
    return menu.map(({ tool, compact }) => this.toSdkTool(tool, compact));
  }

  /**
   * Records what a call of this session found its instance in (`null`: the instance ended);
   * `true` when the session's menu changed since it was last shown or told.
   */
  observe(session: McpSession, instance: Pick<FsmInstanceRef, 'machine' | 'storeKey' | 'scope'>, state: string | null): boolean {
    session.lastMenu ??= this.signature(this.compute(session));
    const { storeKey } = instance;
    if (state === null || (instance.scope === 'handle' && this.ended(storeKey, state))) {
      session.handles.delete(storeKey);
      session.knownStates.delete(storeKey);
    } else {
      if (instance.scope === 'handle') {
        session.handles.add(storeKey);
      }
      session.knownStates.set(storeKey, state);
    }
    const signature = this.signature(this.compute(session));
    if (signature === session.lastMenu) {
      return false;
    }
    session.lastMenu = signature;
    return true;
  }

  /** A change made elsewhere: applies only to instances this session follows; `true` when its menu changed. */
  applyTransition(session: McpSession, machine: string, storeKey: string, state: string | null): boolean {
    const scope = session.handles.has(storeKey) ? 'handle' : session.sessionStoreKey(machine) === storeKey ? 'session' : undefined;
    return scope !== undefined && this.observe(session, { machine, storeKey, scope }, state);
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

  private instanceKeys(session: McpSession): string[] {
    const sessionKeys = this.machines
      .ids()
      .filter((id) => !this.machines.machine(id).stateHandleKey)
      .map((id) => session.sessionStoreKey(id))
      .filter((key): key is string => key !== undefined);
    return [...sessionKeys, ...session.handles];
  }

  private async loadStates(keys: string[]): Promise<Map<string, string>> {
    const states = new Map<string, string>();
    if (keys.length === 0) {
      return states;
    }
    if (isAtomicFsmStateStore(this.store)) {
      for (const [key, snapshot] of await this.store.loadMany(keys)) {
        states.set(key, snapshot.state);
      }
      return states;
    }
    const snapshots = await Promise.all(keys.map((key) => this.store.load(key)));
    keys.forEach((key, index) => snapshots[index] && states.set(key, snapshots[index].state));
    return states;
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
      if (this.isVisible(session, tool, machine, states)) {
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

  private isVisible(session: McpSession, tool: McpToolDefinition, machine: string, states: string[]): boolean {
    if (!tool.binding) {
      return true;
    }
    if (this.machines.machine(machine).stateHandleKey && (session.kind === 'stateless' || this.options.handleToolsMenu === 'all')) {
      return true;
    }
    const engine = this.machines.engine(machine);
    return states.some((state) => tool.binding!.states.some((bound) => engine.matches(state, bound)));
  }

  private signature(menu: MenuEntry[]): string {
    return menu.map(({ tool, compact }) => `${tool.name}${compact ? '~' : ''}`).join('\n');
  }

  private toSdkTool(tool: McpToolDefinition, compact: boolean): Tool {
    return {
      name: tool.name,
      title: tool.title,
      description: compact ? tool.compactDescription : tool.description,
      inputSchema: tool.inputJsonSchema as Tool['inputSchema'],
      outputSchema: tool.outputJsonSchema as Tool['outputSchema'],
      annotations: tool.annotations,
    };
  }
}
