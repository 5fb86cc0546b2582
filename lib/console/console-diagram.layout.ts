import { pathOf, type DiagramNode } from '../diagram/machine-graph.js';
import { arrowLabel, routeArrows, type DiagramArrow } from './console-diagram.arrows.js';

export type { DiagramArrow } from './console-diagram.arrows.js';

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
  /** Whether other states are drawn inside it (a compound or parallel state, or a region of one). */
  readonly container: boolean;
}

/** The start of a container: a dot with an arrow to its initial state. */
interface DiagramInitial {
  readonly cx: number;
  readonly cy: number;
  readonly d: string;
}

/** A machine's diagram laid out: boxes nested in their parents, arrows, initial dots. */
export interface DiagramLayout {
  /** The top of the drawing (negative when an arrow over the states rises above the first row's loops). */
  readonly top: number;
  readonly width: number;
  readonly height: number;
  readonly boxes: readonly DiagramBox[];
  readonly arrows: readonly DiagramArrow[];
  readonly initials: readonly DiagramInitial[];
}

/** Width of one character of the diagram's monospace font (14px), so text fits without measuring it. */
const CHAR_WIDTH = 8.5;
const ATOMIC_HEIGHT = 44;
const MIN_ATOMIC_WIDTH = 104;
/** Room in a box for the current-state mark before the label. */
const MARK_ROOM = 2 * CHAR_WIDTH;
const PADDING = 16;
const HEADER = 32;
const ROW_GAP = 30;
const REGION_GAP = 12;
const INITIAL_ROOM = 34;
const MIN_COLUMN_GAP = 76;
const MAX_COLUMN_GAP = 260;
const LOOP_HEIGHT = 30;
const MARGIN = 12;

/** A box relative to its container's origin, with its children laid out in its own frame. */
interface LocalBox {
  node: DiagramNode;
  width: number;
  height: number;
  children: Array<{ box: LocalBox; x: number; y: number }>;
}

/**
 * Lays out a machine graph (`machineGraph`) deterministically: each compound state's children
 * in columns by the longest path from its initial state along its transitions (cycles broken
 * where a depth-first walk from the initial state closes them), each column sorted by where its
 * states' predecessors sit; regions of a parallel state stacked; every compound state a box
 * around its children. The same machine always gives the same picture.
 */
export function layoutDiagram(root: DiagramNode): DiagramLayout {
  const top = layoutContainer(root);
  const boxes: DiagramBox[] = [];
  const place = (box: LocalBox, x: number, y: number): void => {
    if (box.node !== root) {
      const path = pathOf(box.node).join('.');
      boxes.push({
        node: box.node,
        path,
        label: labelOf(box.node),
        x,
        y,
        width: box.width,
        height: box.height,
        container: box.children.length > 0,
      });
    }
    for (const child of box.children) place(child.box, x + child.x, y + child.y);
  };
  place(top, MARGIN, MARGIN + LOOP_HEIGHT);
  const byNode = new Map(boxes.map((box) => [box.node, box]));
  const arrows = routeArrows(root, byNode);
  const initials = initialsOf(root, byNode);
  const ys = arrows.flatMap((arrow) => [arrow.labelY - 14, arrow.labelY + 10, ...numbersOf(arrow.d).filter((_, index) => index % 2 === 1)]);
  const bottom = Math.max(MARGIN + LOOP_HEIGHT + top.height, ...ys) + MARGIN;
  const upper = Math.floor(Math.min(0, ...ys.map((y) => y - MARGIN)));
  return { top: upper, width: Math.ceil(top.width + 2 * MARGIN), height: Math.ceil(bottom - upper), boxes, arrows, initials };
}

function labelOf(node: DiagramNode): string {
  return node.type === 'history' ? 'H' : node.key;
}

function layoutContainer(node: DiagramNode): LocalBox {
  if (node.children.length === 0) {
    const width = Math.max(MIN_ATOMIC_WIDTH, labelOf(node).length * CHAR_WIDTH + MARK_ROOM + 2 * PADDING);
    return { node, width, height: ATOMIC_HEIGHT, children: [] };
  }
  const children = node.children.map(layoutContainer);
  const isRoot = node.parent === undefined;
  const top = isRoot ? 0 : HEADER;
  const side = isRoot ? 0 : PADDING;
  if (node.type === 'parallel') {
    const width = Math.max(...children.map((child) => child.width));
    let y = top;
    const placed = children.map((box) => {
      const at = { box, x: side, y };
      y += box.height + REGION_GAP;
      return at;
    });
    return { node, width: width + 2 * side, height: y - REGION_GAP + side, children: placed };
  }
  const columns = columnsOf(node);
  const gap = columnGap(node);
  const left = side + (node.initial ? INITIAL_ROOM : 0);
  const boxOf = new Map(children.map((box) => [box.node, box]));
  const heights = columns.map((column) => column.reduce((sum, child) => sum + boxOf.get(child)!.height, 0) + (column.length - 1) * ROW_GAP);
  const contentHeight = Math.max(...heights);
  const placed: LocalBox['children'] = [];
  let x = left;
  columns.forEach((column, index) => {
    const width = Math.max(...column.map((child) => boxOf.get(child)!.width));
    let y = top + (contentHeight - heights[index]) / 2;
    for (const child of column) {
      const box = boxOf.get(child)!;
      placed.push({ box, x: x + (width - box.width) / 2, y });
      y += box.height + ROW_GAP;
    }
    x += width + gap;
  });
  return { node, width: x - gap + side, height: top + contentHeight + side, children: placed };
}

/** The children of `node` in columns (see {@link layoutDiagram}). */
function columnsOf(node: DiagramNode): DiagramNode[][] {
  const order = [...(node.initial ? [node.initial] : []), ...node.children.filter((child) => child !== node.initial)];
  const successors = new Map(order.map((child) => [child, [] as DiagramNode[]]));
  for (const [from, to] of liftedEdges(node)) {
    if (!successors.get(from)!.includes(to)) successors.get(from)!.push(to);
  }
  // Depth-first from the initial state: an edge back to a state on the walk closes a cycle and is left out.
  const forward = new Map(order.map((child) => [child, [] as DiagramNode[]]));
  const finished: DiagramNode[] = [];
  const state = new Map<DiagramNode, 'open' | 'done'>();
  const walk = (child: DiagramNode): void => {
    state.set(child, 'open');
    for (const next of successors.get(child)!) {
      if (state.get(next) === 'open') continue;
      forward.get(child)!.push(next);
      if (!state.has(next)) walk(next);
    }
    state.set(child, 'done');
    finished.push(child);
  };
  order.forEach((child) => state.has(child) || walk(child));
  const layer = new Map(order.map((child) => [child, 0]));
  for (const child of finished.reverse()) {
    for (const next of forward.get(child)!) layer.set(next, Math.max(layer.get(next)!, layer.get(child)! + 1));
  }
  const columns: DiagramNode[][] = [];
  for (const child of order) (columns[layer.get(child)!] ??= []).push(child);
  const row = new Map<DiagramNode, number>();
  return columns
    .filter((column) => column !== undefined)
    .map((column) => {
      const rank = (child: DiagramNode): number => {
        const from = order.filter((other) => forward.get(other)!.includes(child) && row.has(other)).map((other) => row.get(other)!);
        return from.length ? from.reduce((sum, value) => sum + value, 0) / from.length : Number.POSITIVE_INFINITY;
      };
      const sorted = column
        .map((child, index) => ({ child, index, rank: rank(child) }))
        .sort((a, b) => a.rank - b.rank || a.index - b.index)
        .map(({ child }) => child);
      sorted.forEach((child, index) => row.set(child, index));
      return sorted;
    });
}

/** The transitions among descendants of `node`, each as the pair of `node`'s children that hold its ends (a pair of two different children). */
function liftedEdges(node: DiagramNode): Array<[DiagramNode, DiagramNode]> {
  const childHolding = (descendant: DiagramNode): DiagramNode | undefined => {
    let current: DiagramNode | undefined = descendant;
    while (current && current.parent !== node) current = current.parent;
    return current;
  };
  const pairs: Array<[DiagramNode, DiagramNode]> = [];
  const visit = (source: DiagramNode): void => {
    for (const edge of source.edges) {
      for (const target of edge.targets) {
        const [from, to] = [childHolding(source), childHolding(target)];
        if (from && to && from !== to) pairs.push([from, to]);
      }
    }
    source.children.forEach(visit);
  };
  node.children.forEach(visit);
  return pairs;
}

/** Room between the columns of `node` for the labels of the arrows between its children. */
function columnGap(node: DiagramNode): number {
  const labels = liftedLabels(node);
  const widest = Math.max(0, ...labels.map((label) => label.length * CHAR_WIDTH * 0.86 + 28));
  return Math.min(MAX_COLUMN_GAP, Math.max(MIN_COLUMN_GAP, widest));
}

function liftedLabels(node: DiagramNode): string[] {
  const labels: string[] = [];
  for (const child of node.children) for (const edge of child.edges) labels.push(arrowLabel(edge));
  return labels;
}

function initialsOf(root: DiagramNode, boxes: ReadonlyMap<DiagramNode, DiagramBox>): DiagramInitial[] {
  const initials: DiagramInitial[] = [];
  const visit = (node: DiagramNode): void => {
    const target = node.initial && node.type !== 'parallel' ? boxes.get(node.initial) : undefined;
    if (target) {
      const cy = target.y + target.height / 2;
      const cx = target.x - INITIAL_ROOM + 8;
      initials.push({ cx, cy, d: `M ${cx + 6} ${cy} L ${target.x} ${cy}` });
    }
    node.children.forEach(visit);
  };
  visit(root);
  return initials;
}

function numbersOf(d: string): number[] {
  return (d.match(/-?\d+(\.\d+)?/g) ?? []).map(Number);
}
