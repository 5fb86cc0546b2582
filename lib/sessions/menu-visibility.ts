import { grantsSignature, permits, type McpGrants } from '../access/access-requirement.js';
import type { MachineEngine } from '../machines/machine-engine.interface.js';
import type { McpPromptDefinition } from '../registry/mcp-prompt-definition.interface.js';
import type { McpResourceDefinition } from '../registry/mcp-resource-definition.interface.js';
import type { McpHandlerDefinition, McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { isStateRole } from '../registry/mcp-handler-role.js';
import type { McpSessionKind } from './mcp-session.js';

// Answers of `ended` remembered per machine and state, and menus per view; cleared when full (states of parallel machines can be many).
const MAX_REMEMBERED_STATES = 1024;
const MAX_REMEMBERED_MENUS = 256;

/** What the menus know of one machine. */
export interface McpMenuMachine {
  engine: MachineEngine;
  /** The state a new instance starts in. */
  initial: string;
  /** Whether its instances are addressed by handles (a `stateHandleKey`), not by the session. */
  handleKeyed: boolean;
}

/** Everything a server can show: its tools, prompts and resources in declaration order, and its machines. */
export interface McpMenuDefinitions {
  tools: readonly McpToolDefinition[];
  prompts: readonly McpPromptDefinition[];
  resources: readonly McpResourceDefinition[];
  machines: ReadonlyMap<string, McpMenuMachine>;
  /** `'all'`: every tool of a handle-keyed machine is shown whatever the session follows. */
  handleToolsMenu: 'used' | 'all';
}

/** What a menu depends on in a session: its kind, the known states of the instances it follows, per machine, and what its caller holds. */
export interface McpMenuView {
  kind: McpSessionKind;
  /** Distinct states (each known to its machine) of the session's instances, by machine; a machine left out has none. */
  states: ReadonlyMap<string, readonly string[]>;
  /** The scopes and roles of the session's caller: a handler that requires more is not shown. */
  grants: McpGrants;
  /** The decision tools (`@McpApproval`) shown for what waits: those of requests the caller may decide, and its own request's reject tool. */
  decisions?: ReadonlySet<string>;
}

/** One tool of a menu, with whether it shows its compact description. */
export interface McpMenuEntry {
  tool: McpToolDefinition;
  compact: boolean;
}

/** The lists of a session's menu, each with its own `list_changed` notification. */
export type McpListKind = 'tools' | 'prompts' | 'resources';

/** The list kinds, in the order of a {@link McpMenuVisibility.signature}. */
export const LIST_KINDS: readonly McpListKind[] = ['tools', 'prompts', 'resources'];

const NO_STATES: readonly string[] = [];

/**
 * The visibility rules of menus, without I/O: a handler whose `@McpRequire` the caller's
 * grants do not cover is never shown; otherwise an unbound handler is always shown; a bound
 * one while an instance of the session is in one of its states (every tool of a handle-keyed
 * machine for a stateless session, or with `handleToolsMenu: 'all'`); a tool shows its
 * compact description while all the session's instances of its machine are in the initial
 * state. States in, visible definitions out: no store, no session.
 */
export class McpMenuVisibility {
  private readonly endedStates = new Map<string, boolean>();
  /** The tools and signature of each view seen, by {@link viewKey}: a menu depends on nothing else. */
  private readonly menus = new Map<string, { tools: readonly McpMenuEntry[]; signature: readonly string[] }>();

  constructor(private readonly definitions: McpMenuDefinitions) {}

  /**
   * The tools of the session's menu (in declaration order) and its {@link signature}, worked out
   * once per distinct view: sessions in the same states with the same grants share them.
   */
  menu(view: McpMenuView): { tools: readonly McpMenuEntry[]; signature: readonly string[] } {
    const key = viewKey(view);
    let menu = this.menus.get(key);
    if (!menu) {
      const tools = this.tools(view);
      menu = { tools, signature: this.signature(view, tools) };
      if (this.menus.size >= MAX_REMEMBERED_MENUS) {
        this.menus.clear();
      }
      this.menus.set(key, menu);
    }
    return menu;
  }

  /** The tools of the session's menu, in declaration order. */
  tools(view: McpMenuView): McpMenuEntry[] {
    const entries: McpMenuEntry[] = [];
    for (const tool of this.definitions.tools) {
      if (!this.isVisible(view, tool)) {
        continue;
      }
      const machine = tool.role.kind === 'ungated' ? tool.workflow : tool.role.machine;
      if (!machine) {
        entries.push({ tool, compact: false });
        continue;
      }
      const { initial } = this.machine(machine);
      const compact = Boolean(tool.compactDescription) && this.statesOf(view, machine).every((state) => state === initial);
      entries.push({ tool, compact });
    }
    return entries;
  }

  /** The prompts of the session's menu. */
  prompts(view: McpMenuView): McpPromptDefinition[] {
    return this.definitions.prompts.filter((prompt) => this.isVisible(view, prompt));
  }

  /** The resources and resource templates of the session's menu. */
  resources(view: McpMenuView): McpResourceDefinition[] {
    return this.definitions.resources.filter((resource) => this.isVisible(view, resource));
  }

  /**
   * Whether a tool, prompt or resource is in the session's menu. A decision tool of `@McpApproval`
   * is, besides the rules above, while something waits that the caller may decide or withdraw
   * (`view.decisions`), whatever the session follows.
   */
  isVisible(view: McpMenuView, definition: McpHandlerDefinition): boolean {
    const { role } = definition;
    if (role.kind === 'transition' && role.decision && view.decisions?.has(definition.name)) {
      return true;
    }
    if (!permits(definition.access, view.grants)) {
      return false;
    }
    if (!isStateRole(role)) {
      return true;
    }
    const { engine, handleKeyed } = this.machine(role.machine);
    if (handleKeyed && (view.kind === 'stateless' || this.definitions.handleToolsMenu === 'all')) {
      return true;
    }
    return this.statesOf(view, role.machine).some((state) => role.states.some((bound) => engine.matches(state, bound)));
  }

  /** What the session is shown, one string per list kind (in {@link LIST_KINDS} order), to tell which lists changed. */
  signature(view: McpMenuView, tools: readonly McpMenuEntry[] = this.tools(view)): readonly string[] {
    const names = (definitions: readonly McpHandlerDefinition[]) => definitions.map((definition) => definition.name).join('\n');
    return [
      tools.map(({ tool, compact }) => `${tool.name}${compact ? '~' : ''}`).join('\n'),
      names(this.prompts(view)),
      names(this.resources(view)),
    ];
  }

  /** Whether an instance of a handle-keyed machine in `state` has ended for menus: a final state no tool is bound to. */
  ended(machine: string, state: string): boolean {
    const key = `${machine}\n${state}`;
    let ended = this.endedStates.get(key);
    if (ended === undefined) {
      const { engine } = this.machine(machine);
      ended =
        engine.knows(state) &&
        engine.isFinal(state) &&
        !this.definitions.tools.some(
          ({ role }) => isStateRole(role) && role.machine === machine && role.states.some((bound) => engine.matches(state, bound)),
        );
      if (this.endedStates.size >= MAX_REMEMBERED_STATES) {
        this.endedStates.clear();
      }
      this.endedStates.set(key, ended);
    }
    return ended;
  }

  private statesOf(view: McpMenuView, machine: string): readonly string[] {
    return view.states.get(machine) ?? NO_STATES;
  }

  /** The machine with this id; every definition names a machine of the server (the explorer checks). */
  private machine(id: string): McpMenuMachine {
    return this.definitions.machines.get(id)!;
  }
}

/** What a menu depends on, as one string: the session's kind, its grants, the decision tools shown for what waits, and the distinct states of each machine. */
function viewKey({ kind, states, grants, decisions }: McpMenuView): string {
  let key = `${kind}\n${grantsSignature(grants)}\n${decisions ? [...decisions].sort().join('\t') : ''}`;
  for (const [machine, known] of states) {
    key += `\n${machine}:${known.length > 1 ? [...known].sort().join('\t') : known.join('')}`;
  }
  return key;
}
