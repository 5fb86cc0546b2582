import { createMachineEngine } from './machine-engine.factory.js';
import type { MachineEngine } from './machine-engine.interface.js';
import { duplicateMachine, machineIdHasColon } from './machines.messages.js';
import type { McpMachine } from './machine.interface.js';
import { loadXState } from './xstate.loader.js';

/** Which engine runs the machines: see {@link createMachineEngine}. */
export type McpMachineEngineChoice = 'auto' | 'xstate' | 'table';

/** The module's machines with their engines, built once at bootstrap. */
export class McpMachineRegistry {
  private constructor(
    private readonly machines: ReadonlyMap<string, McpMachine>,
    private readonly engines: ReadonlyMap<string, MachineEngine>,
  ) {}

  /**
   * Loads xstate (when installed) and creates the engine of every machine.
   *
   * @param engine `'auto'` runs XState when it is installed, else the table; `'xstate'`
   *   requires XState; `'table'` always uses the built-in table (flat machines only).
   * @throws when two machines share an id, an id contains `':'` (the separator of store
   *   keys), or the chosen engine cannot run a machine.
   */
  static async build(machines: readonly McpMachine[], engine: McpMachineEngineChoice): Promise<McpMachineRegistry> {
    const byId = new Map<string, McpMachine>();
    for (const machine of machines) {
      if (byId.has(machine.id)) {
        throw new Error(duplicateMachine(machine.id));
      }
      if (machine.id.includes(':')) {
        throw new Error(machineIdHasColon(machine.id));
      }
      byId.set(machine.id, machine);
    }
    // Only a registry that needs XState imports it: the table engine runs without it.
    const xstate = engine === 'table' || byId.size === 0 ? undefined : await loadXState();
    const engines = new Map<string, MachineEngine>();
    for (const machine of byId.values()) {
      engines.set(machine.id, createMachineEngine(machine, xstate, engine));
    }
    return new McpMachineRegistry(byId, engines);
  }

  /** Whether a machine has this id. */
  has(id: string): boolean {
    return this.machines.has(id);
  }

  /** The machine ids, in the order the machines were given. */
  ids(): string[] {
    return [...this.machines.keys()];
  }

  /** The machine with this id; call `has` first for an id that may be unknown. */
  machine(id: string): McpMachine {
    return this.machines.get(id)!;
  }

  /** The engine that runs the machine with this id; call `has` first for an id that may be unknown. */
  engine(id: string): MachineEngine {
    return this.engines.get(id)!;
  }
}
