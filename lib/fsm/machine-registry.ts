import { Inject, Injectable } from '@nestjs/common';
import { MCP_MODULE_OPTIONS } from '../mcp.module-definition.js';
import type { McpModuleOptions } from '../interfaces/mcp-module-options.interface.js';
import { createFsmEngine } from './fsm-engine.factory.js';
import type { FsmEngine } from './fsm-engine.interface.js';
import type { McpMachine } from './machine.interface.js';
import { loadXState } from './xstate.loader.js';
import { duplicateMachine } from '../mcp.messages.js';

/** The module's machines with their engines, built once at bootstrap. */
@Injectable()
export class McpMachineRegistry {
  private readonly engines = new Map<string, FsmEngine>();
  private readonly machines = new Map<string, McpMachine>();

  constructor(@Inject(MCP_MODULE_OPTIONS) private readonly options: McpModuleOptions) {}

  /** Creates every engine; a config the chosen engine cannot run fails here. */
  async build(): Promise<void> {
    const xstate = await loadXState();
    for (const machine of this.options.machines ?? []) {
      if (this.machines.has(machine.id)) {
        throw new Error(duplicateMachine(machine.id));
      }
      this.machines.set(machine.id, machine);
      this.engines.set(machine.id, createFsmEngine(machine, xstate, this.options.engine ?? 'auto'));
    }
  }

  has(id: string): boolean {
    return this.machines.has(id);
  }

  ids(): string[] {
    return [...this.machines.keys()];
  }

  machine(id: string): McpMachine {
    return this.machines.get(id)!;
  }

  engine(id: string): FsmEngine {
    return this.engines.get(id)!;
  }
}
