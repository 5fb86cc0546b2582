import ELK from 'elkjs/lib/elk.bundled.js';
import { approvalEdges } from '../diagram/approval-edges.js';
import { claimConfig, orderConfig } from '../diagram/diagram-machines.fixture.js';
import { graphNodes, machineGraph, type DiagramNode } from '../diagram/machine-graph.js';
import { defineMachine } from '../machines/define-machine.js';
import { layoutWithElk, type DiagramLayout } from './console-diagram.elk.js';

type Box = { x: number; y: number; width: number; height: number };

const elk = new ELK.default();
/** The sample's payment, as plain data: an `after` transition, guarded refunds, a state where a refund waits for a person. */
const payment = defineMachine({
  id: 'payment',
  initial: 'pending',
  states: {
    pending: { on: { AUTHORIZE: 'authorized' } },
    authorized: { after: { authorizationTtl: 'voided' }, on: { CAPTURE: 'captured', VOID: 'voided' } },
    captured: {
      on: {
        REFUND: [
          { guard: 'refundLeavesNothing', target: 'refunded' },
          { guard: 'refundLeavesSome', target: 'partially_refunded' },
        ],
      },
    },
    partially_refunded: {
      on: {
        REFUND: [
          { guard: 'refundLeavesNothing', target: 'refunded' },
          { guard: 'refundLeavesSome', target: 'partially_refunded' },
        ],
      },
    },
    refund_pending: {},
    voided: { type: 'final' },
    refunded: { type: 'final' },
  },
});
const refundTools = [
  {
    name: 'payment.refund',
    role: {
      kind: 'transition',
      machine: 'payment',
      states: ['captured', 'partially_refunded'],
      event: 'REFUND',
      approval: { waitIn: 'refund_pending', approve: 'payment.approve_refund', reject: 'payment.reject_refund' },
    },
  },
];

/** The segments of an arrow's path (`M x y L x y …`). */
function segments(d: string): Array<[number, number, number, number]> {
  const points = [...d.matchAll(/[ML] (-?[\d.]+) (-?[\d.]+)/g)].map(([, x, y]) => [Number(x), Number(y)]);
  return points.slice(1).map((point, index) => [points[index][0], points[index][1], point[0], point[1]]);
}

const inside = (box: Box, [x1, y1, x2, y2]: [number, number, number, number]) =>
  Math.max(x1, x2) > box.x + 1 &&
  Math.min(x1, x2) < box.x + box.width - 1 &&
  Math.max(y1, y2) > box.y + 1 &&
  Math.min(y1, y2) < box.y + box.height - 1;
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** What a reader of the drawing would trip on: arrows through states they do not connect, labels on states, other labels or lines. */
function flaws(layout: DiagramLayout): string[] {
  const states = layout.boxes.filter((box) => !box.container);
  const found: string[] = [];
  for (const arrow of layout.arrows) {
    for (const segment of segments(arrow.d)) {
      for (const box of states)
        if (box.path !== arrow.from && box.path !== arrow.to && inside(box, segment)) found.push(`${arrow.label} through ${box.path}`);
    }
    for (const box of states) if (overlaps(arrow.labelBox, box)) found.push(`${arrow.label} on ${box.path}`);
    for (const other of layout.arrows) {
      if (other === arrow) continue;
      if (overlaps(arrow.labelBox, other.labelBox)) found.push(`${arrow.label} on ${other.label}`);
      for (const segment of segments(other.d))
        if (inside(arrow.labelBox, segment)) found.push(`${arrow.label} on the line of ${other.label}`);
    }
  }
  return found;
}

/** How many arrows a machine has: each target of each transition (a targetless one: a loop). */
const transitions = (root: DiagramNode) =>
  graphNodes(root).reduce((sum, node) => sum + node.edges.reduce((n, edge) => n + Math.max(1, edge.targets.length), 0), 0);

describe('layoutWithElk', () => {
  it("draws every transition of the sample's payment, its after transition and its approval's waits and decisions, with no label on a line", async () => {
    const root = machineGraph(payment);
    const approvals = approvalEdges(root, 'payment', refundTools);
    const layout = await layoutWithElk(elk, root, approvals);
    expect(layout.arrows).toHaveLength(transitions(root) + approvals.length);
    expect(
      layout.arrows.find((arrow) => arrow.from === 'authorized' && arrow.to === 'voided' && arrow.label === 'after authorizationTtl'),
    ).toBeDefined();
    const pending = layout.arrows.filter(
      (arrow) => arrow.kind === 'approval' && (arrow.from === 'refund_pending' || arrow.to === 'refund_pending'),
    );
    expect(pending.map((arrow) => `${arrow.from}>${arrow.to}:${arrow.label}`).sort()).toEqual([
      'captured>refund_pending:REFUND (waits)',
      'partially_refunded>refund_pending:REFUND (waits)',
      'refund_pending>captured:rejected',
      'refund_pending>partially_refunded:approved',
      'refund_pending>partially_refunded:rejected',
      'refund_pending>refunded:approved',
    ]);
    expect(layout.boxes.find((box) => box.path === 'refund_pending')).toMatchObject({ waits: true });
    expect(flaws(layout)).toEqual([]);
    expect(layout.initials).toHaveLength(1);
  });

  it('draws nested and parallel states inside their parents, every transition, no arrow through a state, the same picture every time', async () => {
    for (const config of [claimConfig, orderConfig]) {
      const root = machineGraph(defineMachine(config));
      const layout = await layoutWithElk(elk, root, []);
      expect(layout.arrows).toHaveLength(transitions(root));
      for (const box of layout.boxes.filter((each) => each.node.parent?.parent)) {
        const parent = layout.boxes.find((each) => each.node === box.node.parent)!;
        expect(overlaps(box, parent) && box.x >= parent.x && box.x + box.width <= parent.x + parent.width).toBe(true);
      }
      expect(flaws(layout).filter((flaw) => flaw.includes(' through '))).toEqual([]);
      expect(await layoutWithElk(elk, root, [])).toEqual(layout);
    }
  });
});
