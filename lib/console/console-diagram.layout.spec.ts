import { machineGraph } from '../diagram/machine-graph.js';
import { defineMachine } from '../machines/define-machine.js';
import { paymentMachine } from '../machines/billing-machines.fixture.js';
import { layoutDiagram, type DiagramBox } from './console-diagram.layout.js';
import { diagramMarks, renderDiagram } from './console-diagram.svg.js';

/** Nested and parallel states, a cycle, a self-transition and a transition out of a nested state. */
const claim = defineMachine({
  id: 'claim',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: {
      initial: 'legal',
      on: { WITHDRAW: 'draft' },
      states: {
        legal: { on: { SIGN: 'finance', NOTE: 'legal' } },
        finance: { on: { SIGN: 'signed', ESCALATE: '#claim.rejected' } },
        signed: { type: 'final' },
      },
      onDone: 'approved',
    },
    approved: {
      type: 'parallel',
      states: {
        payout: { initial: 'queued', states: { queued: { on: { PAY: 'paid' } }, paid: { type: 'final' } } },
        archive: { initial: 'open', states: { open: { on: { FILE: 'filed' } }, filed: { type: 'final' } } },
      },
    },
    rejected: { type: 'final' },
  },
});

const inside = (child: DiagramBox, parent: DiagramBox) =>
  child.x >= parent.x &&
  child.y >= parent.y &&
  child.x + child.width <= parent.x + parent.width &&
  child.y + child.height <= parent.y + parent.height;
const overlap = (a: DiagramBox, b: DiagramBox) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe('layoutDiagram', () => {
  const layout = layoutDiagram(machineGraph(claim));
  const box = (path: string) => layout.boxes.find((each) => each.path === path)!;

  it('draws every state once, by its dotted path', () => {
    expect(layout.boxes.map((each) => each.path).sort()).toEqual(
      [
        'draft',
        'review',
        'review.legal',
        'review.finance',
        'review.signed',
        'approved',
        'approved.payout',
        'approved.payout.queued',
        'approved.payout.paid',
        'approved.archive',
        'approved.archive.open',
        'approved.archive.filed',
        'rejected',
      ].sort(),
    );
  });

  it('puts nested states inside their parent, and no two siblings on top of each other', () => {
    for (const each of layout.boxes) {
      const parentPath = each.path.split('.').slice(0, -1).join('.');
      if (parentPath) expect(inside(each, box(parentPath))).toBe(true);
      for (const other of layout.boxes) {
        const siblings = other !== each && other.path.split('.').slice(0, -1).join('.') === parentPath;
        if (siblings) expect(overlap(each, other)).toBe(false);
      }
    }
    expect(layout.boxes.every((each) => each.x >= 0 && each.x + each.width <= layout.width)).toBe(true);
  });

  it('lays states out along their transitions: the initial state first, a later step to the right', () => {
    expect(box('draft').x).toBeLessThan(box('review').x);
    expect(box('review').x).toBeLessThan(box('approved').x);
    expect(box('review.legal').x).toBeLessThan(box('review.finance').x);
    expect(box('review.finance').x).toBeLessThan(box('review.signed').x);
    // Regions of a parallel state are stacked.
    expect(box('approved.payout').y + box('approved.payout').height).toBeLessThanOrEqual(box('approved.archive').y);
  });

  it('is deterministic: the same machine gives the same picture', () => {
    expect(layoutDiagram(machineGraph(claim))).toEqual(layout);
    expect(renderDiagram(claim, diagramMarks(claim, 'review.finance'))).toBe(renderDiagram(claim, diagramMarks(claim, 'review.finance')));
  });

  it('draws one arrow per transition, a self-transition as a loop, within the drawing', () => {
    expect(layout.arrows.map((arrow) => arrow.label).sort()).toEqual(
      ['ESCALATE', 'FILE', 'NOTE', 'PAY', 'SIGN', 'SIGN', 'SUBMIT', 'WITHDRAW', 'onDone'].sort(),
    );
    const numbers = layout.arrows.flatMap((arrow) => (arrow.d.match(/-?\d+(\.\d+)?/g) ?? []).map(Number));
    expect(numbers.every((value) => Number.isFinite(value))).toBe(true);
    const ys = layout.arrows.map((arrow) => arrow.labelY);
    expect(Math.min(...ys)).toBeGreaterThanOrEqual(layout.top);
    expect(Math.max(...ys)).toBeLessThanOrEqual(layout.top + layout.height);
  });
});

describe('the diagram marks', () => {
  it('marks the leaf of a nested state as current and its parent as around it', () => {
    expect(diagramMarks(claim, 'review.finance')).toEqual({ current: ['review.finance'], within: ['review'] });
    const svg = renderDiagram(claim, diagramMarks(claim, 'review.finance'));
    expect(svg).toMatch(/data-state-node="review\.finance"[^>]*aria-current="step"/);
    expect(svg.match(/aria-current="step"/g)).toHaveLength(1);
    expect(svg).toMatch(/data-state-node="review"[^>]*data-within=""/);
  });

  it('marks every active region of a parallel state', () => {
    const state = JSON.stringify({ approved: { payout: 'paid', archive: 'open' } });
    expect(diagramMarks(claim, state)).toEqual({
      current: ['approved.payout.paid', 'approved.archive.open'],
      within: ['approved', 'approved.payout', 'approved.archive'],
    });
  });

  it('marks nothing for a state the machine does not have', () => {
    expect(diagramMarks(paymentMachine, 'retired')).toEqual({ current: [], within: [] });
    expect(renderDiagram(paymentMachine, diagramMarks(paymentMachine, 'retired'))).not.toContain('aria-current');
  });

  it('escapes state names', () => {
    const odd = defineMachine({ id: 'odd', initial: '<b>', states: { '<b>': { on: { GO: 'x"y' } }, 'x"y': {} } });
    const svg = renderDiagram(odd, diagramMarks(odd, '<b>'));
    expect(svg).toContain('data-state-node="&lt;b&gt;"');
    expect(svg).toContain('data-state-node="x&quot;y"');
    expect(svg).not.toContain('<b>');
  });
});
