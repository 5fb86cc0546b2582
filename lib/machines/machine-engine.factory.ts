import type { MachineEngine } from './machine-engine.interface.js';
import { xstateEngineUnavailable, xstateMachineWithoutXState } from './machines.messages.js';
import type { McpMachine } from './machine.interface.js';
import { TableMachineEngine } from './table-machine.engine.js';
import { XStateMachineEngine } from './xstate-machine.engine.js';
import type { XStateModule } from './xstate.loader.js';

/**
 * Creates the engine that runs `machine`.
 *
 * @param xstate the loaded `xstate` module, or `undefined` when it is not installed.
 * @param engine `'auto'` runs XState when given, else the table; `'xstate'` requires
 *   XState; `'table'` always uses the built-in table (flat machines only).
 * @throws when the chosen engine cannot run the machine.
 */
export function createMachineEngine(
  machine: McpMachine,
  xstate: XStateModule | undefined,
  engine: 'auto' | 'xstate' | 'table' = 'auto',
): MachineEngine {
  if (engine === 'table') {
    return new TableMachineEngine(machine);
  }
  if (xstate) {
    return new XStateMachineEngine(machine, xstate);
  }
  if (engine === 'xstate') {
    throw new Error(xstateEngineUnavailable(machine.id));
  }
  if (machine.xstateMachine) {
    throw new Error(xstateMachineWithoutXState(machine.id));
  }
  return new TableMachineEngine(machine);
}
