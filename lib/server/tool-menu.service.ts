import { Inject, Injectable } from '@nestjs/common';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpToolDefinition } from '../discovery/mcp-tool-definition.interface.js';
import { McpToolRegistry } from '../discovery/mcp-tool.registry.js';
import { McpMachineRegistry } from '../fsm/machine-registry.js';
import { isAtomicFsmStateStore } from '../stores/atomic-fsm-state-store.interface.js';
import { FsmStateStore } from '../stores/fsm-state-store.interface.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import type { McpSession } from './mcp-session.js';

/** One entry of a session's menu. */
interface MenuEntry {
  tool: McpToolDefinition;
  compact: boolean;
}

/**
 * Computes each session's menu (design §3): tools of its session-keyed instances' states,
 * tools allowed for any live handle it started or used, start tools and unbound tools.
 * The initial state shows `compactDescription`.
 */
@Injectable()
export class ToolMenuService {
  private readonly listAllHandleTools: boolean;

  constructor(
    @Inject(MCP_MODULE_OPTIONS) options: McpModuleOptions,
    private readonly tools: McpToolRegistry,
    private readonly machines: McpMachineRegistry,
    @Inject(FsmStateStore) private readonly store: FsmStateStore,
  ) {
    this.listAllHandleTools = options.handleToolsMenu === 'all';
  }

  /** The session's menu as `tools/list` returns it; reads the store once. */
  async list(session: McpSession): Promise<Tool[]> {
    const states = await this.loadStates(this.instanceKeys(session));
    session.knownStates.clear();
    for (const [key, state] of states) {
      session.knownStates.set(key, state);
    }
    const menu = this.compute(session);
    session.lastMenu = this.signature(menu);
    return menu.map(({ tool, compact }) => this.toSdkTool(tool, compact));
  }

  /**
   * Records a transition of one of the session's instances; `true` when its menu changed
   * since it was last shown or told, so it should get `list_changed`.
   */
  applyTransition(session: McpSession, machine: string, storeKey: string, state: string): boolean {
    const ownsInstance = session.handles.has(storeKey) || session.sessionStoreKey(machine) === storeKey;
    if (!ownsInstance) {
      return false;
    }
    session.lastMenu ??= this.signature(this.compute(session));
    session.knownStates.set(storeKey, state);
    const signature = this.signature(this.compute(session));
    if (signature === session.lastMenu) {
      return false;
    }
    session.lastMenu = signature;
    return true;
  }

  /**
   * Adds a handle that the session used through an unbound tool (a status tool, say) to the
   * handles its menu follows; `true` when its menu changed. Reads the store once, the first
   * time a session uses a handle; an unknown handle is not kept.
   */
  async adoptHandle(session: McpSession, machine: string, storeKey: string): Promise<boolean> {
    if (session.handles.has(storeKey)) {
      return false;
    }
    const state = (await this.loadStates([storeKey])).get(storeKey);
    if (state === undefined) {
      return false;
    }
    session.lastMenu ??= this.signature(this.compute(session));
    session.handles.add(storeKey);
    return this.applyTransition(session, machine, storeKey, state);
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
      const initial = this.machines.engine(machine).initialState();
      const compact = Boolean(tool.compactDescription) && states.every((state) => state === initial);
      if (this.isVisible(session, tool, machine, states)) {
        entries.push({ tool, compact });
      }
    }
    return entries;
  }

  /** States of the session's instances of `machine` (its session instance, or its live handles). */
  private instanceStates(session: McpSession, machine: string): string[] {
    const engine = this.machines.engine(machine);
    if (this.machines.machine(machine).stateHandleKey) {
      return [...session.handles]
        .filter((key) => key.startsWith(`${machine}:`))
        .map((key) => session.knownStates.get(key))
        .filter((state): state is string => state !== undefined && !engine.isFinal(state));
    }
    const key = session.sessionStoreKey(machine);
    return key === undefined ? [] : [session.knownStates.get(key) ?? engine.initialState()];
  }

  private isVisible(session: McpSession, tool: McpToolDefinition, machine: string, states: string[]): boolean {
    if (!tool.binding) {
      return true;
    }
    if (this.machines.machine(machine).stateHandleKey && (session.kind === 'stateless' || this.listAllHandleTools)) {
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
