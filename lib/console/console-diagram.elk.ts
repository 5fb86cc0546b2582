import type { ELK, ElkExtendedEdge, ElkLabel, ElkNode } from 'elkjs/lib/elk-api.js';
import type { ApprovalEdge } from '../diagram/approval-edges.js';
import { edgeEventText, pathOf, type DiagramEdge, type DiagramNode } from '../diagram/machine-graph.js';

/** One state drawn as a box, in SVG user units (absolute). */
export interface DiagramBox {
  readonly node: DiagramNode;
  /** The dotted path of the state (`'review.legal'`): what `data-state-node` carries. */
  readonly path: string;
  readonly label: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  /** Whether other states are drawn inside it (a compound or parallel state). */
  readonly container: boolean;
  /** Whether a call waits in it for a person (`@McpApproval`). */
  readonly waits: boolean;
}

/** One transition drawn as a path from one box to another (or back to itself). */
export interface DiagramArrow {
  /** SVG path data: straight segments. */
  readonly d: string;
  /** The event (`'CAPTURE'`, `after authorizationTtl`, `always`) with its guard in brackets (`'REFUND [refundLeavesSome]'`). */
  readonly label: string;
  /** The same, for the tooltip. */
  readonly title: string;
  /** The label's box (its text is centred in it). */
  readonly labelBox: { readonly x: number; readonly y: number; readonly width: number; readonly height: number };
  /** The paths of the states it leaves and enters (the same for a loop). */
  readonly from: string;
  readonly to: string;
  /** `transition`: the machine's; `internal`: one without a target (actions, no state change); `approval`: `@McpApproval`'s. */
  readonly kind: 'transition' | 'internal' | 'approval';
}

/** The start of a container: a dot with an arrow to its initial state. */
export interface DiagramInitial {
  readonly cx: number;
  readonly cy: number;
  readonly d: string;
}

/** A machine's diagram laid out: boxes nested in their parents, arrows, initial dots, and the size of it all. */
export interface DiagramLayout {
  readonly width: number;
  readonly height: number;
  readonly boxes: readonly DiagramBox[];
  readonly arrows: readonly DiagramArrow[];
  readonly initials: readonly DiagramInitial[];
}

/** Width of one character of the diagram's monospace font (14px), so text fits without measuring it. */
const CHAR_WIDTH = 8.5;
/** Width of one character of an arrow's label (12px). */
const LABEL_CHAR_WIDTH = 7.3;
const LABEL_HEIGHT = 16;
const ATOMIC_HEIGHT = 44;
const MIN_ATOMIC_WIDTH = 96;
/** Room in a box for the current-state mark before the label, and around the label. */
const BOX_ROOM = 2 * CHAR_WIDTH + 28;
const INITIAL_SIZE = 12;

/** How ELK lays out a machine: layers left to right, orthogonal arrows, labels placed as ELK places them (clear of the lines), nested states inside their parents. */
const LAYOUT_OPTIONS = {
  'elk.algorithm': 'layered',

  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.edgeRouting': 'ORTHOGONAL',
  'elk.edgeLabels.inline': 'false',
  'elk.layered.edgeLabels.sideSelection': 'SMART_UP',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
  'elk.layered.spacing.nodeNodeBetweenLayers': '48',
  'elk.layered.spacing.edgeNodeBetweenLayers': '20',
  'elk.spacing.nodeNode': '28',
  'elk.spacing.edgeEdge': '12',
  'elk.spacing.edgeNode': '16',
  'elk.spacing.edgeLabel': '4',
  'elk.padding': '[top=12,left=12,bottom=12,right=12]',
};
const CONTAINER_OPTIONS = { 'elk.padding': '[top=40,left=16,bottom=16,right=16]' };

/** An arrow to lay out: its ends, its label and kind. */
interface PlannedArrow {
  readonly from: DiagramNode;
  readonly to: DiagramNode;
  readonly label: string;
  readonly title: string;
  readonly kind: DiagramArrow['kind'];
}

/** The widest a diagram is drawn left to right; a wider one is drawn top to bottom when that is narrower. */
const MAX_WIDE_WIDTH = 1200;

/**
 * Lays out a machine graph (`machineGraph`) with ELK's layered algorithm: every transition drawn
 * (`after`, `always`, `onDone` included, a targetless one as a loop), the waits and decisions of
 * `@McpApproval` (`approvals`), nested states as boxes inside their parents, each container's
 * initial state marked by a dot; left to right, or top to bottom when left to right would be
 * wider than {@link MAX_WIDE_WIDTH} and top to bottom is narrower. Deterministic: the same
 * machine gives the same picture.
 */
export async function layoutWithElk(elk: ELK, root: DiagramNode, approvals: readonly ApprovalEdge[]): Promise<DiagramLayout> {
  const wide = await layoutIn(elk, root, approvals, 'RIGHT');
  if (wide.width <= MAX_WIDE_WIDTH) return wide;
  const tall = await layoutIn(elk, root, approvals, 'DOWN');
  return tall.width < wide.width ? tall : wide;
}

async function layoutIn(
  elk: ELK,
  root: DiagramNode,
  approvals: readonly ApprovalEdge[],
  direction: 'RIGHT' | 'DOWN',
): Promise<DiagramLayout> {
  const waiting = new Set(
    approvals.map((edge) => edge.to).filter((node) => approvals.some((edge) => edge.step === 'waits' && edge.to === node)),
  );
  const arrows = planArrows(root, approvals);
  const graph: ElkNode = {
    id: 'root',
    layoutOptions: { ...LAYOUT_OPTIONS, 'elk.direction': direction },
    children: root.children.map(elkNode),
    edges: [],
  };
  arrows.forEach((arrow, index) => graph.edges!.push(elkEdge(`a${index}`, arrow)));
  addPorts(graph, arrows);
  initialEdges(root).forEach((edge) => graph.edges!.push(edge));
  addInitialNodes(root, graph);
  const laid = await elk.layout(graph);
  const offsets = new Map<string, { x: number; y: number }>([['root', { x: 0, y: 0 }]]);
  const byId = new Map<string, ElkNode>();
  const visit = (node: ElkNode, x: number, y: number): void => {
    for (const child of node.children ?? []) {
      const at = { x: x + (child.x ?? 0), y: y + (child.y ?? 0) };
      offsets.set(child.id, at);
      byId.set(child.id, child);
      visit(child, at.x, at.y);
    }
  };
  visit(laid, 0, 0);
  const boxes = boxesOf(root, offsets, byId, waiting);
  const edges = laid.edges ?? [];
  return {
    width: Math.ceil(laid.width ?? 0),
    height: Math.ceil(laid.height ?? 0),
    boxes,
    arrows: arrows.map((arrow, index) =>
      drawn(
        arrow,
        edges.find((edge) => edge.id === `a${index}`)!,
        offsets,
      ),
    ),
    initials: edges.filter((edge) => edge.id.startsWith('i:')).map((edge) => initialDot(edge, offsets)),
  };
}

/** The label of a transition: its event, and its guard in brackets. */
export function arrowLabel(edge: DiagramEdge): string {
  const event = edgeEventText(edge);
  return edge.guard ? `${event} [${edge.guard}]` : event;
}

const idOf = (node: DiagramNode): string => `n:${pathOf(node).join('.')}`;
const labelOf = (node: DiagramNode): string => (node.type === 'history' ? 'H' : node.key);

function elkNode(node: DiagramNode): ElkNode {
  if (node.children.length === 0) {
    const width = Math.max(MIN_ATOMIC_WIDTH, Math.ceil(labelOf(node).length * CHAR_WIDTH + BOX_ROOM));
    // A state with many arrows on one side grows, so that each keeps a point of its own.
    const size = { 'elk.nodeSize.constraints': 'PORTS MINIMUM_SIZE', 'elk.nodeSize.minimum': `(${width}, ${ATOMIC_HEIGHT})` };
    return { id: idOf(node), width, height: ATOMIC_HEIGHT, layoutOptions: size };
  }
  const width = Math.ceil(labelOf(node).length * CHAR_WIDTH + BOX_ROOM);
  return {
    id: idOf(node),
    layoutOptions: {
      ...CONTAINER_OPTIONS,
      'elk.nodeSize.minimum': `(${width}, ${ATOMIC_HEIGHT})`,
      'elk.nodeSize.constraints': 'MINIMUM_SIZE',
    },
    children: node.children.map(elkNode),
  };
}

/** An arrow as an ELK edge, between ports of its own on its two states (`<id>:out`, `<id>:in`: no two arrows end in one point). */
function elkEdge(id: string, arrow: PlannedArrow): ElkExtendedEdge {
  const label: ElkLabel = { text: arrow.label, width: Math.ceil(arrow.label.length * LABEL_CHAR_WIDTH) + 6, height: LABEL_HEIGHT };
  return { id, sources: [`${id}:out`], targets: [`${id}:in`], labels: [label] };
}

/** Gives every arrow a port of its own on each of its states, placed by ELK on whichever side suits it. */
function addPorts(graph: ElkNode, arrows: readonly PlannedArrow[]): void {
  const nodes = new Map<string, ElkNode>();
  const collect = (node: ElkNode): void => {
    nodes.set(node.id, node);
    node.children?.forEach(collect);
  };
  collect(graph);
  arrows.forEach((arrow, index) => {
    for (const [end, state] of [
      ['out', arrow.from],
      ['in', arrow.to],
    ] as const) {
      const node = nodes.get(idOf(state))!;
      node.ports = [...(node.ports ?? []), { id: `a${index}:${end}`, width: 0, height: 0 }];
      node.layoutOptions = { ...node.layoutOptions, 'elk.portConstraints': 'FREE', 'elk.spacing.portPort': '16' };
    }
  });
}

/** Every arrow to draw, once each: the machine's transitions (a targetless one as a loop), then the approvals'. */
function planArrows(root: DiagramNode, approvals: readonly ApprovalEdge[]): PlannedArrow[] {
  const arrows: PlannedArrow[] = [];
  const seen = new Set<string>();
  const add = (arrow: PlannedArrow): void => {
    const key = `${idOf(arrow.from)}>${idOf(arrow.to)}>${arrow.label}>${arrow.kind}`;
    if (!seen.has(key)) arrows.push(arrow);
    seen.add(key);
  };
  const visit = (source: DiagramNode): void => {
    for (const edge of source.edges) {
      const label = arrowLabel(edge);
      if (edge.targets.length === 0) add({ from: source, to: source, label, title: `${label} (no target: stays)`, kind: 'internal' });
      for (const target of edge.targets) add({ from: source, to: target, label, title: label, kind: 'transition' });
    }
    source.children.forEach(visit);
  };
  root.children.forEach(visit);
  for (const edge of approvals) {
    const label = edge.step === 'waits' ? `${edge.event} (waits)` : edge.step === 'approved' ? `approved` : `rejected`;
    const title = edge.step === 'waits' ? `${edge.tool} waits for a second person` : `${edge.decider ?? edge.step}: ${edge.step}`;
    add({ from: edge.from, to: edge.to, label, title, kind: 'approval' });
  }
  return arrows;
}

/** A dot node in each container with an initial state (the root included), for its initial arrow. */
function addInitialNodes(root: DiagramNode, graph: ElkNode): void {
  const containers = new Map<DiagramNode, ElkNode>([[root, graph]]);
  const collect = (node: DiagramNode, elkFor: ElkNode): void => {
    containers.set(node, elkFor);
    node.children.forEach((child, index) => collect(child, elkFor.children?.[index] ?? elkFor));
  };
  root.children.forEach((child, index) => collect(child, graph.children![index]));
  for (const [node, elkFor] of containers) {
    if (node.initial && node.type !== 'parallel') {
      elkFor.children = [{ id: `i:${pathOf(node).join('.')}`, width: INITIAL_SIZE, height: INITIAL_SIZE }, ...(elkFor.children ?? [])];
    }
  }
}

function initialEdges(root: DiagramNode): ElkExtendedEdge[] {
  const edges: ElkExtendedEdge[] = [];
  const visit = (node: DiagramNode): void => {
    if (node.initial && node.type !== 'parallel') {
      const path = pathOf(node).join('.');
      edges.push({ id: `i:${path}`, sources: [`i:${path}`], targets: [idOf(node.initial)] });
    }
    node.children.forEach(visit);
  };
  visit(root);
  return edges;
}

function boxesOf(
  root: DiagramNode,
  offsets: ReadonlyMap<string, { x: number; y: number }>,
  byId: ReadonlyMap<string, ElkNode>,
  waiting: ReadonlySet<DiagramNode>,
): DiagramBox[] {
  const boxes: DiagramBox[] = [];
  const visit = (node: DiagramNode): void => {
    const id = idOf(node);
    const at = offsets.get(id)!;
    const laid = byId.get(id)!;
    boxes.push({
      node,
      path: pathOf(node).join('.'),
      label: labelOf(node),
      x: at.x,
      y: at.y,
      width: laid.width ?? 0,
      height: laid.height ?? 0,
      container: node.children.length > 0,
      waits: waiting.has(node),
    });
    node.children.forEach(visit);
  };
  root.children.forEach(visit);
  return boxes;
}

/** An arrow as ELK routed it, in absolute coordinates (ELK gives an edge's points relative to its container). */
function drawn(arrow: PlannedArrow, edge: ElkExtendedEdge, offsets: ReadonlyMap<string, { x: number; y: number }>): DiagramArrow {
  const origin = offsets.get(edge.container ?? 'root') ?? { x: 0, y: 0 };
  const label = edge.labels?.[0];
  return {
    d: pathData(edge, origin),
    label: arrow.label,
    title: arrow.title,
    labelBox: {
      x: origin.x + (label?.x ?? 0),
      y: origin.y + (label?.y ?? 0),
      width: label?.width ?? 0,
      height: label?.height ?? 0,
    },
    from: pathOf(arrow.from).join('.'),
    to: pathOf(arrow.to).join('.'),
    kind: arrow.kind,
  };
}

function pathData(edge: ElkExtendedEdge, origin: { x: number; y: number }): string {
  return (edge.sections ?? [])
    .map((section) => {
      const points = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
      return points.map((point, index) => `${index ? 'L' : 'M'} ${round(origin.x + point.x)} ${round(origin.y + point.y)}`).join(' ');
    })
    .join(' ');
}

function initialDot(edge: ElkExtendedEdge, offsets: ReadonlyMap<string, { x: number; y: number }>): DiagramInitial {
  const at = offsets.get(edge.sources[0])!;
  return {
    cx: round(at.x + INITIAL_SIZE / 2),
    cy: round(at.y + INITIAL_SIZE / 2),
    d: pathData(edge, offsets.get(edge.container ?? 'root') ?? { x: 0, y: 0 }),
  };
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}
