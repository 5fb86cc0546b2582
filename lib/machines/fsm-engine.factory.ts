import type { MachineEngine } from './fsm-engine.interface.js';
import { xstateEngineUnavailable, xstateMachineWithoutXState } from './machines.messages.js';
import type { McpMachine } from './machine.interface.js';
import { TableFsmEngine } from './table-fsm.engine.js';
import { XStateFsmEngine } from './xstate-fsm.engine.js';
import type { XStateModule } from './xstate.loader.js';

/**
 * Creates the engine that runs `machine`.
 *
 * @param xstate the loaded `xstate` module, or `undefined` when it is not installed.
 * @param engine `'auto'` runs XState when given, else the table; `'xstate'` requires
 *   XState; `'table'` always uses the built-in table (flat machines only).
 * @throws when the chosen engine cannot run the machine.
 */
export function createFsmEngine(
  machine: McpMachine,
  xstate: XStateModule | undefined,
  engine: 'auto' | 'xstate' | 'table' = 'auto',
): MachineEngine {
  if (engine === 'table') {
    return new TableFsmEngine(machine);
  }
  if (xstate) {
    return new XStateFsmEngine(machine, xstate);
  }
  if (engine === 'xstate') {
    throw new Error(xstateEngineUnavailable(machine.id));
  }
  if (machine.xstateMachine) {
    throw new Error(xstateMachineWithoutXState(machine.id));
  }
  return new TableFsmEngine(machine);
}
