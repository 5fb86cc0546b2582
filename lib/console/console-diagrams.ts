import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleInit } from '@nestjs/common';
import type { ELK } from 'elkjs/lib/elk-api.js';
import { approvalEdges } from '../diagram/approval-edges.js';
import { machineGraph } from '../diagram/machine-graph.js';
import type { McpMachine } from '../machines/machine.interface.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import { MCP_CONSOLE_OPTIONS, type McpResolvedConsoleOptions } from './console-options.interface.js';
import { importOptionalPeer } from '../peers/optional-peer.loader.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';
import { elkMissing } from './console.messages.js';
import { layoutWithElk, type DiagramLayout } from './console-diagram.elk.js';

/** The `elkjs` module (an optional peer of the console), as its bundled build exports it. */
type ElkModule = { default: new () => ELK };

/**
 * The diagrams of the console's machines, laid out by ELK (`elkjs`, an optional peer the console
 * needs) once per machine, as their first page asks: a machine does not change while the app runs.
 * They are laid out in the background once the app has started, so the first page does not wait.
 */
@Injectable()
export class WorkflowConsoleDiagrams implements OnModuleInit, OnApplicationBootstrap {
  private elk?: ELK;
  private readonly layouts = new Map<McpMachine, Promise<DiagramLayout>>();

  constructor(
    @Inject(MCP_CONSOLE_OPTIONS) private readonly options: McpResolvedConsoleOptions | null,
    private readonly tools: McpToolRegistry,
    private readonly machines: McpMachineRegistry,
  ) {}

  /** Loads `elkjs`; the console cannot start without it (the error says what to install). */
  async onModuleInit(): Promise<void> {
    if (!this.options) return;
    const elk = await importOptionalPeer<ElkModule>(['elkjs'], () => import('elkjs/lib/elk.bundled.js') as unknown as Promise<ElkModule>);
    if (!elk) throw new Error(elkMissing());
    this.elk = new elk.default();
  }

  /** Starts laying out every machine, without waiting for it (a failure shows on the first page that asks). */
  onApplicationBootstrap(): void {
    if (!this.elk) return;
    for (const id of this.machines.ids()) this.layoutOf(this.machines.machine(id)).catch(() => undefined);
  }

  /** The layout of `machine`'s diagram, with the waits and decisions of its `@McpApproval` tools. */
  layoutOf(machine: McpMachine): Promise<DiagramLayout> {
    let layout = this.layouts.get(machine);
    if (!layout) {
      const root = machineGraph(machine);
      layout = layoutWithElk(this.elk!, root, approvalEdges(root, machine.id, this.tools.all()));
      this.layouts.set(machine, layout);
    }
    return layout;
  }
}
