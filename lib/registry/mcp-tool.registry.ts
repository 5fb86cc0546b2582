import { Injectable } from '@nestjs/common';
import { NO_GRANTS, permits, type McpGrants } from '../access/access-requirement.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpToolDefinition } from './mcp-tool-definition.interface.js';
import { isStateRole } from './mcp-handler-role.js';

// Allowed-name lists remembered per machine and state; cleared when full (states of parallel machines can be many).
const MAX_REMEMBERED_STATES = 1024;

/** The server's tools, filled once at bootstrap by the explorer. */
@Injectable()
export class McpToolRegistry {
  private readonly tools = new Map<string, McpToolDefinition>();
  private list: readonly McpToolDefinition[] = [];
  private readonly allowed = new Map<string, readonly string[]>();
  /** Whether any tool requires scopes or roles. */
  private requiring = false;

  constructor(private readonly machines: McpMachineRegistry) {}

  /** Adds the discovered tools (names are already unique). */
  register(tools: McpToolDefinition[]): void {
    for (const tool of tools) {
      this.tools.set(tool.name, tool);
    }
    this.list = Object.freeze([...this.tools.values()]);
    this.requiring = this.list.some((tool) => tool.access !== undefined);
    this.allowed.clear();
  }

  /** The tool named `name`, if there is one. */
  get(name: string): McpToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** Every tool, in registration order. */
  all(): readonly McpToolDefinition[] {
    return this.list;
  }

  /**
   * Tool names allowed while `machine`'s instance is in `state`: its bound, start and unbound
   * tools (only start and unbound ones for an unknown state). The list is shared: read it only.
   */
  allowedNames(machine: string, state: string): readonly string[] {
    const key = `${machine}\u0000${state}`;
    let names = this.allowed.get(key);
    if (!names) {
      names = Object.freeze(this.computeAllowedNames(machine, state));
      if (this.allowed.size >= MAX_REMEMBERED_STATES) {
        this.allowed.clear();
      }
      this.allowed.set(key, names);
    }
    return names;
  }

  private computeAllowedNames(machine: string, state: string): string[] {
    const engine = this.machines.engine(machine);
    if (!engine.knows(state)) {
      return this.entryNames(machine);
    }
    return this.all()
      .filter(({ role, workflow }) => {
        switch (role.kind) {
          case 'start':
            return role.machine === machine;
          case 'bound':
          case 'transition':
            return role.machine === machine && role.states.some((s) => engine.matches(state, s));
          default:
            return workflow === machine;
        }
      })
      .map((tool) => tool.name);
  }

  /**
   * The tools of `names` a caller holding `grants` may use (`@McpRequire`): what a refusal or a
   * result tells it is allowed never names a tool it cannot see. `names` itself when no tool
   * requires anything.
   */
  usableBy(names: readonly string[], grants: McpGrants = NO_GRANTS): readonly string[] {
    if (!this.requiring) {
      return names;
    }
    return names.filter((name) => permits(this.tools.get(name)?.access, grants));
  }

  /** Every tool a caller holding `grants` may use, in registration order: a diagram it reads names no other. */
  allUsableBy(grants: McpGrants = NO_GRANTS): readonly McpToolDefinition[] {
    return this.requiring ? this.list.filter((tool) => permits(tool.access, grants)) : this.list;
  }

  /** Start tools of `machine`. */
  startNames(machine: string): string[] {
    return this.all()
      .filter(({ role }) => role.kind === 'start' && role.machine === machine)
      .map((tool) => tool.name);
  }

  /** Tools usable without an instance of `machine`: its start tools and unbound tools. */
  entryNames(machine: string): string[] {
    return this.all()
      .filter(({ role, workflow }) => (role.kind === 'start' ? role.machine === machine : !isStateRole(role) && workflow === machine))
      .map((tool) => tool.name);
  }
}
