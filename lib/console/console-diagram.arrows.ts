import { edgeEventText, isAncestor, type DiagramEdge, type DiagramNode } from '../diagram/machine-graph.js';

/** One state's box as the arrows see it (see `DiagramBox`). */
interface ArrowBox {
  readonly node: DiagramNode;
  readonly path: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly container: boolean;
}

/** One transition drawn as a path from one box to another (or back to itself). */
export interface DiagramArrow {
  /** SVG path data: straight segments with rounded corners, or a cubic. */
  readonly d: string;
  /** The event (`'CAPTURE'`, `always`, `onDone`) with its guard in brackets (`'REFUND [refundLeavesSome]'`). */
  readonly label: string;
  /** The same, for the tooltip. */
  readonly title: string;
  readonly labelX: number;
  readonly labelY: number;
  /** The paths of the states it leaves and enters (the same for a loop). */
  readonly from: string;
  readonly to: string;
  /** A transition without a target: it runs its actions and stays (a loop drawn dashed). */
  readonly internal: boolean;
}

type Side = 'left' | 'right' | 'top' | 'bottom';
type Kind = 'loop' | 'straight' | 'over' | 'back' | 'down' | 'up';

/** Where an arrow leaves or enters a box: a side, and its order among the side's other ends. */
interface Port {
  box: ArrowBox;
  side: Side;
  key: number;
  x: number;
  y: number;
}

interface Plan {
  from: ArrowBox;
  to: ArrowBox;
  kind: Kind;
  label: string;
  internal: boolean;
  exit: Port;
  entry: Port;
  /** The level of the lane above (`over`) or below (`back`) the states, counted out from them. */
  lane: number;
}

const LOOP_RISE = 26;
const LANE_GAP = 14;
const LANE_CLEARANCE = 18;
const CORNER = 6;

/**
 * Routes every transition among the laid-out `boxes` so that no two arrows end in one point and
 * none runs through a state it does not connect: each box side gives its arrows ports of their
 * own, spread along it in the order of their other ends; an arrow to a later column goes
 * straight when nothing stands between, else over every state in its way in a lane of its own;
 * an arrow back to an earlier column runs below every state between, in a lane of its own;
 * self-transitions and transitions without a target are loops above their state, side by side.
 */
export function routeArrows(root: DiagramNode, boxes: ReadonlyMap<DiagramNode, ArrowBox>): DiagramArrow[] {
  const solid = [...boxes.values()].filter((box) => !box.container);
  const plans = planArrows(root, boxes, solid);
  assignPorts(plans);
  assignLanes(plans, 'over');
  assignLanes(plans, 'back');
  const looped = new Set(plans.filter((plan) => plan.kind === 'loop').map((plan) => plan.from));
  return plans.map((plan) => draw(plan, solid, looped));
}

/** The label of a transition: its event, and its guard in brackets. */
export function arrowLabel(edge: DiagramEdge): string {
  const event = edgeEventText(edge);
  return edge.guard ? `${event} [${edge.guard}]` : event;
}

function planArrows(root: DiagramNode, boxes: ReadonlyMap<DiagramNode, ArrowBox>, solid: readonly ArrowBox[]): Plan[] {
  const plans: Plan[] = [];
  const seen = new Set<string>();
  const visit = (source: DiagramNode): void => {
    const from = boxes.get(source);
    for (const edge of source.edges) {
      const label = arrowLabel(edge);
      const targets = edge.targets.length ? edge.targets : [undefined];
      for (const target of targets) {
        const to = target ? boxes.get(target) : from;
        const id = `${from?.path}>${to?.path}>${label}>${target === undefined}`;
        if (!from || !to || seen.has(id)) continue;
        seen.add(id);
        const kind = kindOf(from, to, target === undefined, solid);
        const [exitSide, entrySide] = kind === 'back' ? backSides(from, to, solid) : SIDES[kind];
        plans.push({
          from,
          to,
          kind,
          label,
          internal: target === undefined,
          exit: { box: from, side: exitSide, key: 0, x: 0, y: 0 },
          entry: { box: to, side: entrySide, key: 0, x: 0, y: 0 },
          lane: 0,
        });
      }
    }
    source.children.forEach(visit);
  };
  visit(root);
  return plans;
}

const SIDES: Record<Kind, [Side, Side]> = {
  loop: ['top', 'top'],
  straight: ['right', 'left'],
  over: ['right', 'left'],
  back: ['bottom', 'bottom'],
  down: ['bottom', 'top'],
  up: ['top', 'bottom'],
};

/**
 * The sides an arrow back to an earlier column leaves and enters by: the bottoms, unless a state
 * stands below an end in its column (the arrow would run through it on its way to its lane):
 * then the side that faces the gap between the columns.
 */
function backSides(from: ArrowBox, to: ArrowBox, solid: readonly ArrowBox[]): [Side, Side] {
  const below = (box: ArrowBox) =>
    solid.some((other) => other !== box && other.y >= box.y + box.height && other.x < box.x + box.width && other.x + other.width > box.x);
  return [below(from) ? 'left' : 'bottom', below(to) ? 'right' : 'bottom'];
}

function kindOf(from: ArrowBox, to: ArrowBox, internal: boolean, solid: readonly ArrowBox[]): Kind {
  if (internal || from === to || isAncestor(from.node, to.node) || isAncestor(to.node, from.node)) return 'loop';
  if (to.x >= from.x + from.width) {
    const [left, right] = [from.x + from.width, to.x];
    const [top, bottom] = [Math.min(from.y, to.y), Math.max(from.y + from.height, to.y + to.height)];
    // States of the columns between (never the ends' own columns, whose boxes are centred at other widths).
    const blocked = solid.some(
      (box) => box !== from && box !== to && box.x >= left && box.x + box.width <= right && box.y < bottom && box.y + box.height > top,
    );
    return blocked ? 'over' : 'straight';
  }
  if (to.x + to.width <= from.x) return 'back';
  return to.y > from.y ? 'down' : 'up';
}

/** Spreads the ends on each side of each box, ordered by where their other ends are (loops last, on the top's right). */
function assignPorts(plans: Plan[]): void {
  const sides = new Map<string, Port[]>();
  const add = (port: Port, other: ArrowBox, plan: Plan) => {
    const center = { x: other.x + other.width / 2, y: other.y + other.height / 2 };
    port.key =
      plan.kind === 'loop'
        ? Number.MAX_SAFE_INTEGER
        : plan.kind === 'over'
          ? -1e6 - (plan.to.x - plan.from.x)
          : port.side === 'left' || port.side === 'right'
            ? center.y
            : center.x;
    const id = `${port.box.path}|${port.side}`;
    sides.set(id, [...(sides.get(id) ?? []), port]);
  };
  for (const plan of plans) {
    add(plan.exit, plan.to, plan);
    if (plan.kind !== 'loop') add(plan.entry, plan.from, plan);
  }
  for (const ports of sides.values()) {
    ports.sort((a, b) => a.key - b.key);
    ports.forEach((port, index) => {
      const share = (index + 1) / (ports.length + 1);
      const { box } = port;
      port.x = port.side === 'left' ? box.x : port.side === 'right' ? box.x + box.width : box.x + box.width * share;
      port.y = port.side === 'top' ? box.y : port.side === 'bottom' ? box.y + box.height : box.y + box.height * share;
    });
  }
  for (const plan of plans) {
    if (plan.kind === 'loop') plan.entry = { ...plan.exit };
  }
}

/** Gives each arrow of `kind` a lane of its own among those whose spans overlap (the shorter ones nearer the states). */
function assignLanes(plans: Plan[], kind: 'over' | 'back'): void {
  const lanes = plans.filter((plan) => plan.kind === kind).sort((a, b) => span(a) - span(b));
  const taken: Array<{ lane: number; left: number; right: number }> = [];
  for (const plan of lanes) {
    const [left, right] = [Math.min(plan.exit.x, plan.entry.x), Math.max(plan.exit.x, plan.entry.x)];
    let lane = 0;
    while (taken.some((other) => other.lane === lane && other.left < right + 40 && left < other.right + 40)) lane += 1;
    plan.lane = lane;
    taken.push({ lane, left, right });
  }
}

const span = (plan: Plan) => Math.abs(plan.entry.x - plan.exit.x);

function draw(plan: Plan, solid: readonly ArrowBox[], looped: ReadonlySet<ArrowBox>): DiagramArrow {
  const { exit, entry, label } = plan;
  const common = { label, title: label, from: plan.from.path, to: plan.to.path, internal: plan.internal };
  switch (plan.kind) {
    case 'loop': {
      const [a, b] = [exit.x - 9, exit.x + 9];
      const top = exit.y - LOOP_RISE;
      return {
        ...common,
        d: `M ${fixed(a)} ${fixed(exit.y)} C ${fixed(a)} ${fixed(top)}, ${fixed(b)} ${fixed(top)}, ${fixed(b)} ${fixed(exit.y)}`,
        labelX: fixed(exit.x),
        labelY: fixed(top - 4),
      };
    }
    case 'straight': {
      const middle = (exit.x + entry.x) / 2;
      return {
        ...common,
        d: `M ${fixed(exit.x)} ${fixed(exit.y)} C ${fixed(middle)} ${fixed(exit.y)}, ${fixed(middle)} ${fixed(entry.y)}, ${fixed(entry.x)} ${fixed(entry.y)}`,
        labelX: fixed(middle),
        labelY: fixed((exit.y + entry.y) / 2 - 6),
      };
    }
    case 'over': {
      const blockers = between(solid, plan, exit.x, entry.x);
      // Above the loops (and their labels) of the states in the way too.
      const tops = blockers.map((box) => box.y - (looped.has(box) ? LOOP_RISE + 16 : 0));
      const laneY = Math.min(exit.y, entry.y, ...tops) - LANE_CLEARANCE - plan.lane * LANE_GAP;
      const out = exit.x + 12 + plan.lane * 6;
      const into = entry.x - 12 - plan.lane * 6;
      return {
        ...common,
        d: rounded([
          [exit.x, exit.y],
          [out, exit.y],
          [out, laneY],
          [into, laneY],
          [into, entry.y],
          [entry.x, entry.y],
        ]),
        labelX: fixed((out + into) / 2),
        labelY: fixed(laneY - 4),
      };
    }
    case 'back': {
      // Down to the lane in the gap beside a column when a state stands below the end (see `backSides`).
      const down = exit.side === 'left' ? exit.x - 10 - plan.lane * 5 : exit.x;
      const up = entry.side === 'right' ? entry.x + 10 + plan.lane * 5 : entry.x;
      const blockers = between(solid, plan, up, down);
      const laneY =
        Math.max(plan.from.y + plan.from.height, plan.to.y + plan.to.height, ...blockers.map((box) => box.y + box.height)) +
        LANE_CLEARANCE +
        plan.lane * LANE_GAP;
      const points: Array<[number, number]> = [[exit.x, exit.y]];
      if (down !== exit.x) points.push([down, exit.y]);
      points.push([down, laneY], [up, laneY]);
      if (up !== entry.x) points.push([up, entry.y]);
      points.push([entry.x, entry.y]);
      return { ...common, d: rounded(points), labelX: fixed((down + up) / 2), labelY: fixed(laneY + 14) };
    }
    case 'down':
    case 'up': {
      const middle = (exit.y + entry.y) / 2;
      return {
        ...common,
        d: rounded([
          [exit.x, exit.y],
          [exit.x, middle],
          [entry.x, middle],
          [entry.x, entry.y],
        ]),
        labelX: fixed(Math.max(exit.x, entry.x) + 8 + label.length * 3.6),
        labelY: fixed(middle + 4),
      };
    }
  }
}

/** The solid boxes (other than the arrow's ends) whose horizontal extent meets `[left, right]`. */
function between(solid: readonly ArrowBox[], plan: Plan, left: number, right: number): ArrowBox[] {
  return solid.filter((box) => box !== plan.from && box !== plan.to && box.x < right && box.x + box.width > left);
}

/** A path through `points` in straight segments, with the corners rounded. */
function rounded(points: ReadonlyArray<readonly [number, number]>): string {
  const parts = [`M ${fixed(points[0][0])} ${fixed(points[0][1])}`];
  for (let index = 1; index < points.length - 1; index++) {
    const [previous, corner, next] = [points[index - 1], points[index], points[index + 1]];
    const into = toward(corner, previous, CORNER);
    const outOf = toward(corner, next, CORNER);
    parts.push(`L ${fixed(into[0])} ${fixed(into[1])}`, `Q ${fixed(corner[0])} ${fixed(corner[1])}, ${fixed(outOf[0])} ${fixed(outOf[1])}`);
  }
  const last = points[points.length - 1];
  parts.push(`L ${fixed(last[0])} ${fixed(last[1])}`);
  return parts.join(' ');
}

/** The point `distance` from `from` toward `to` (at most half the way). */
function toward(from: readonly [number, number], to: readonly [number, number], distance: number): [number, number] {
  const length = Math.hypot(to[0] - from[0], to[1] - from[1]);
  if (length === 0) return [from[0], from[1]];
  const step = Math.min(distance, length / 2) / length;
  return [from[0] + (to[0] - from[0]) * step, from[1] + (to[1] - from[1]) * step];
}

function fixed(value: number): number {
  return Math.round(value * 10) / 10;
}
