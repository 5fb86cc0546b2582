import * as xstate from 'xstate';
import { defineMachine } from './define-machine.js';
import type { McpMachineConfig } from './machine.interface.js';
import { XStateMachineEngine } from './xstate-machine.engine.js';

/** The XState engine of a plain config or an XState machine, as the module builds it. */
export const engineFor = (config: McpMachineConfig | Parameters<typeof defineMachine>[0]): XStateMachineEngine =>
  new XStateMachineEngine(defineMachine(config), xstate);
