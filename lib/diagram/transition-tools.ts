import { matchesEventDescriptor } from '../machines/xstate-transition-names.js';
import { graphNodes, isAncestor, nodeAt, type DiagramEdge, type DiagramNode } from './machine-graph.js';
import type { McpMermaidTool } from './mermaid-tool.interface.js';

/** A bound tool with its states resolved to nodes of the graph. */
interface BoundTool {
  readonly name: string;
  readonly event: string;
  readonly states: DiagramNode[];
}

/** The start tools of machine `machineId`, in the order given. */
export function startToolsOf(machineId: string, tools: readonly McpMermaidTool[]): McpMermaidTool[] {
  return tools.filter(({ role }) => role.kind === 'start' && role.machine === machineId);
}

/**
 * The names of the tools that fire each `on` transition of the graph: the bound tools whose
 * event the transition takes in a state they are callable in, then the start tools whose
 * event it takes once the machine has started. Edges no tool fires are left out.
 */
export function toolsByEdge(root: DiagramNode, machineId: string, tools: readonly McpMermaidTool[]): Map<DiagramEdge, string[]> {
  const bound = boundTools(root, machineId, tools);
  const startTools = startToolsOf(machineId, tools);
  const leaves = initialLeaves(root);
  const byEdge = new Map<DiagramEdge, string[]>();
  for (const source of graphNodes(root)) {
    for (const edge of source.edges) {
      if (edge.kind !== 'on') {
        continue;
      }
      const names = new Set<string>();
      for (const tool of bound) {
        if (matchesEventDescriptor(tool.event, edge.event) && tool.states.some((state) => fires(state, source, tool.event))) {
          names.add(tool.name);
        }
      }
      for (const tool of startTools) {
        const { event } = tool.role;
        if (event !== undefined && matchesEventDescriptor(event, edge.event) && leaves.some((leaf) => reaches(leaf, source, event))) {
          names.add(tool.name);
        }
      }
      if (names.size) {
        byEdge.set(edge, [...names]);
      }
    }
  }
  return byEdge;
}

function boundTools(root: DiagramNode, machineId: string, tools: readonly McpMermaidTool[]): BoundTool[] {
  const bound: BoundTool[] = [];
  for (const { name, role } of tools) {
    if (role.kind !== 'transition' || role.machine !== machineId || role.event === undefined) {
      continue;
    }
    const states = (role.states ?? []).map((path) => nodeAt(root, path)).filter((node) => node !== undefined);
    bound.push({ name, event: role.event, states });
  }
  return bound;
}

/** The active states without active children once the machine has started. */
function initialLeaves(root: DiagramNode): DiagramNode[] {
  const leaves: DiagramNode[] = [];
  const enter = (node: DiagramNode): void => {
    const active = node.type === 'parallel' ? node.children : node.initial ? [node.initial] : [];
    if (active.length === 0) {
      leaves.push(node);
    }
    active.forEach(enter);
  };
  enter(root);
  return leaves;
}

/**
 * Whether a tool callable in `bound` sends its event to the transitions that `source`
 * declares: `source` is `bound`, a descendant, an ancestor (see `reaches`) or in a
 * parallel region beside it.
 */
function fires(bound: DiagramNode, source: DiagramNode, event: string): boolean {
  if (source === bound || isAncestor(bound, source)) {
    return true;
  }
  if (isAncestor(source, bound)) {
    return reaches(bound, source, event);
  }
  let common = source.parent;
  while (common && !isAncestor(common, bound)) {
    common = common.parent;
  }
  return common?.type === 'parallel';
}

/** Whether `event`, sent in `from`, gets up to the transitions of its ancestor-or-self `to`: no state in between takes it unguarded. */
function reaches(from: DiagramNode, to: DiagramNode, event: string): boolean {
  for (let node: DiagramNode | undefined = from; node && node !== to; node = node.parent) {
    if (node.edges.some((edge) => edge.kind === 'on' && edge.guard === undefined && matchesEventDescriptor(event, edge.event))) {
      return false;
    }
  }
  return from === to || isAncestor(to, from);
}
