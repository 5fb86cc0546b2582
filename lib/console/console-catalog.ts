import { Injectable } from '@nestjs/common';
import { graphNodes, machineGraph, nodeAt, pathOf, type DiagramNode } from '../diagram/machine-graph.js';
import { McpMachineRegistry } from '../machines/machine-registry.js';
import type { McpMachine } from '../machines/machine.interface.js';
import { McpToolRegistry } from '../registry/mcp-tool.registry.js';

/** A machine as the console shows it, read from its graph, its deadlines and the tools bound to it once. */
export interface ConsoleMachine {
  readonly id: string;
  readonly machine: McpMachine;
  /** Its states' dotted paths, in document order. */
  readonly states: readonly string[];
  /** Its final states' paths. */
  readonly finals: readonly string[];
  /** The states where a call waits for a person (the `waitIn` of its `@McpApproval` tools). */
  readonly waiting: readonly string[];
  /** Where each of its `after` timers leads, by timer id (the target states' paths). */
  readonly afterTargets: ReadonlyMap<string, readonly string[]>;
  /** The approve and reject tools of the calls that wait in its states, by the tool whose call waits. */
  readonly decisions: ReadonlyMap<string, { readonly approve: string; readonly reject: string }>;
  /** The events operators may send from the console (`defineMachine(..., { operatorEvents })`). */
  readonly operatorEvents: readonly string[];
}

/** The machines this app serves, as the console shows them: states, finals, waiting states, where deadlines lead. */
@Injectable()
export class WorkflowConsoleCatalog {
  private catalog?: Map<string, ConsoleMachine>;

  constructor(
    private readonly registry: McpMachineRegistry,
    private readonly tools: McpToolRegistry,
  ) {}

  /** Every machine, in the order the app gave them. */
  machines(): readonly ConsoleMachine[] {
    return [...this.byId().values()];
  }

  /** The machine with this id, when the app serves it. */
  machine(id: string): ConsoleMachine | undefined {
    return this.byId().get(id);
  }

  /** Whether `state` is a final state of `machine`. */
  isFinal(machine: string, state: string | null | undefined): boolean {
    return state != null && Boolean(this.machine(machine)?.finals.includes(state));
  }

  /** Whether an instance of `machine` in `state` waits for a person (a state an `@McpApproval` call waits in, or one inside it). */
  isWaiting(machine: string, state: string | null | undefined): boolean {
    return state != null && Boolean(this.machine(machine)?.waiting.some((waiting) => state === waiting || state.startsWith(`${waiting}.`)));
  }

  private byId(): Map<string, ConsoleMachine> {
    this.catalog ??= new Map(this.registry.ids().map((id) => [id, this.describe(this.registry.machine(id))]));
    return this.catalog;
  }

  private describe(machine: McpMachine): ConsoleMachine {
    const root = machineGraph(machine);
    const nodes = graphNodes(root).filter((node) => node.parent && node.type !== 'history');
    const path = (node: DiagramNode) => pathOf(node).join('.');
    const afterTargets = new Map<string, string[]>();
    for (const deadline of this.registry.engine(machine.id).deadlines()) {
      const edge = nodeAt(root, deadline.state)?.edges.find(
        (candidate) => candidate.kind === 'after' && candidate.event === deadline.delay,
      );
      if (edge) afterTargets.set(deadline.event, edge.targets.map(path));
    }
    const waiting = new Set<string>();
    const decisions = new Map<string, { approve: string; reject: string }>();
    for (const { name, role } of this.tools.all()) {
      if (role.kind !== 'transition' || role.machine !== machine.id || !role.approval) continue;
      waiting.add(role.approval.waitIn);
      decisions.set(name, { approve: role.approval.approve, reject: role.approval.reject });
    }
    return {
      id: machine.id,
      machine,
      states: nodes.map(path),
      finals: nodes.filter((node) => node.type === 'final').map(path),
      waiting: [...waiting],
      afterTargets,
      decisions,
      operatorEvents: Object.keys(machine.operatorEvents ?? {}),
    };
  }
}
