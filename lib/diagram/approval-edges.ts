import { matchesEventDescriptor } from '../machines/xstate-transition-names.js';
import { nodeAt, type DiagramNode } from './machine-graph.js';
import type { McpMermaidTool } from './mermaid-tool.interface.js';

/** A transition `@McpApproval` makes, which no event of the machine draws: into its waiting state, or out of it once decided. */
export interface ApprovalEdge {
  readonly from: DiagramNode;
  readonly to: DiagramNode;
  /** `waits`: a call goes to wait; `approved`: the approved call's event leads on; `rejected`: a rejection goes back. */
  readonly step: 'waits' | 'approved' | 'rejected';
  /** The tool whose calls wait. */
  readonly tool: string;
  /** The event the waiting call sends once approved. */
  readonly event: string;
  /** The tool that approves (`approved`) or rejects (`rejected`) it. */
  readonly decider?: string;
}

/**
 * The transitions of the `@McpApproval` tools of machine `machineId`: from each state a tool is
 * bound to into its waiting state; from there to where the bound event leads (approved), and
 * back to each bound state (rejected). Tools naming a state the machine lacks are left out.
 */
export function approvalEdges(root: DiagramNode, machineId: string, tools: readonly McpMermaidTool[]): ApprovalEdge[] {
  const edges: ApprovalEdge[] = [];
  for (const { name, role } of tools) {
    const { approval, event } = role;
    const waiting = approval && nodeAt(root, approval.waitIn);
    if (role.kind !== 'transition' || role.machine !== machineId || !approval || !waiting || event === undefined) continue;
    const states = (role.states ?? []).map((path) => nodeAt(root, path)).filter((node) => node !== undefined);
    const approved = new Set<DiagramNode>();
    for (const state of states) {
      edges.push({ from: state, to: waiting, step: 'waits', tool: name, event });
      for (const edge of state.edges) {
        if (edge.kind === 'on' && matchesEventDescriptor(event, edge.event)) edge.targets.forEach((target) => approved.add(target));
      }
    }
    approved.forEach((target) => edges.push({ from: waiting, to: target, step: 'approved', tool: name, event, decider: approval.approve }));
    states.forEach((state) => edges.push({ from: waiting, to: state, step: 'rejected', tool: name, event, decider: approval.reject }));
  }
  return edges;
}
