import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { assign, setup } from 'xstate';
import { launchChromium } from '../../scripts/chromium.js';
import { defineMachine } from '../../lib/index.js';
import ELK from 'elkjs/lib/elk.bundled.js';
import { layoutWithElk } from '../../lib/console/console-diagram.elk.js';
import { diagramMarks, renderDiagram } from '../../lib/console/console-diagram.svg.js';
import { machineGraph } from '../../lib/diagram/machine-graph.js';
import { CONSOLE_STYLE } from '../../lib/console/console.style.js';
import { connectClient } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

/** What the browser measures of a drawn diagram: each arrow's ends and the states it passes through. */
interface Measured {
  arrows: Array<{ from: string; to: string; label: string; internal: boolean; end: [number, number]; crosses: string[] }>;
}

/**
 * Measures the diagram on `page` with the browser's own geometry: each arrow's end point
 * (`getPointAtLength` at its length) and every state box (not a container) that a point of the
 * arrow lies inside of, its own two ends left out.
 */
function measure(page: Page): Promise<Measured> {
  return page.evaluate(() => {
    const boxes = [...document.querySelectorAll<SVGGElement>('svg.diagram g.state:not(.compound):not(.parallel)')].map((group) => {
      const rect = group.querySelector('rect.box') as SVGRectElement;
      const [x, y, width, height] = ['x', 'y', 'width', 'height'].map((name) => Number(rect.getAttribute(name)));
      return { path: group.getAttribute('data-state-node')!, x, y, width, height };
    });
    const arrows = [...document.querySelectorAll<SVGGElement>('svg.diagram g.edge')].map((edge) => {
      const path = edge.querySelector('path.arrow') as SVGPathElement;
      const from = edge.getAttribute('data-from')!;
      const to = edge.getAttribute('data-to')!;
      const length = path.getTotalLength();
      const crosses = new Set<string>();
      for (let step = 0; step <= 200; step++) {
        const point = path.getPointAtLength((length * step) / 200);
        for (const box of boxes) {
          const inside = point.x > box.x + 2 && point.x < box.x + box.width - 2 && point.y > box.y + 2 && point.y < box.y + box.height - 2;
          if (inside && box.path !== from && box.path !== to) crosses.add(box.path);
        }
      }
      const end = path.getPointAtLength(length);
      return {
        from,
        to,
        label: edge.querySelector('text')!.textContent!,
        internal: edge.hasAttribute('data-internal'),
        end: [Math.round(end.x), Math.round(end.y)] as [number, number],
        crosses: [...crosses],
      };
    });
    return { arrows };
  });
}

/** Arrows whose ends are closer than `distance` (two arrowheads drawn as one). */
function sharedHeads(arrows: Measured['arrows'], distance = 8): string[] {
  const shared: string[] = [];
  arrows.forEach((arrow, index) => {
    for (const other of arrows.slice(index + 1)) {
      if (Math.hypot(arrow.end[0] - other.end[0], arrow.end[1] - other.end[1]) < distance)
        shared.push(`${arrow.label} & ${other.label} → ${arrow.to}`);
    }
  });
  return shared;
}

/** Two approvals counted in context (a transition without target), a guard on each way out, a back edge across a column. */
const countedApproval = defineMachine(
  setup({
    types: { context: {} as { approvals: number }, events: {} as { type: string } },
    guards: { oneMoreNeeded: ({ context }) => context.approvals < 1, enoughApprovals: ({ context }) => context.approvals >= 1 },
    actions: { count: assign({ approvals: ({ context }) => context.approvals + 1 }) },
  }).createMachine({
    id: 'counted',
    initial: 'draft',
    context: { approvals: 0 },
    states: {
      draft: { on: { SUBMIT: 'review' } },
      review: {
        on: {
          APPROVE: [
            { guard: 'enoughApprovals', target: 'approved' },
            { guard: 'oneMoreNeeded', actions: 'count' },
          ],
          REJECT: 'draft',
          PARK: 'parked',
        },
      },
      parked: { on: { RESUME: 'review', DROP: 'draft' } },
      approved: { on: { REOPEN: 'draft' } },
    },
  }),
);

describe('the console diagram in a real browser: arrows that never share a head or cross a state, targetless transitions and guards drawn', () => {
  let directory: string;
  let sample: SampleProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'console-diagram-'));
    sample = await startSample({ SAMPLE_DB: join(directory, 'sample.sqlite') });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await sample?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 1800, height: 900 } });
  });

  afterEach(async () => {
    await page.close();
  });

  it("draws the sample's payment: each REFUND ends at an arrowhead of its own, no arrow runs under another state, guards named", async () => {
    const agent = await connectClient(sample.url);
    try {
      const { paymentId } = (await agent.call('payment.authorize', { amount: 25, currency: 'EUR' })).structuredContent as {
        paymentId: string;
      };
      await page.goto(new URL(`/workflows/payment/${paymentId}`, sample.url).href);
    } finally {
      await agent.close();
    }
    const { arrows } = await measure(page);
    expect(arrows.filter((arrow) => arrow.to === 'refunded').length).toBeGreaterThanOrEqual(2);
    expect(sharedHeads(arrows)).toEqual([]);
    expect(arrows.filter((arrow) => arrow.crosses.length > 0)).toEqual([]);
    expect(arrows.map((arrow) => arrow.label)).toEqual(
      expect.arrayContaining(['REFUND [refundLeavesNothing]', 'REFUND [refundLeavesSome]']),
    );
    await page.screenshot({ path: '/tmp/harden/payment-diagram.png', fullPage: true });
  });

  it('draws a transition without a target (an approval counted in context) as a dashed loop with its guard, apart from the others', async () => {
    const root = machineGraph(countedApproval);
    const svg = renderDiagram(countedApproval, diagramMarks(countedApproval, 'review'), await layoutWithElk(new ELK.default(), root, []));
    await page.setContent(`<!doctype html><html><head><style>${CONSOLE_STYLE}</style></head><body><figure>${svg}</figure></body></html>`);
    const { arrows } = await measure(page);
    const counted = arrows.find((arrow) => arrow.internal)!;
    expect(counted).toMatchObject({ from: 'review', to: 'review', label: 'APPROVE [oneMoreNeeded]' });
    expect(await page.locator('g.edge[data-internal] path.arrow').evaluate((path) => getComputedStyle(path).strokeDasharray)).not.toBe(
      'none',
    );
    expect(arrows.find((arrow) => arrow.to === 'approved')!.label).toBe('APPROVE [enoughApprovals]');
    // Three arrows back into draft (REJECT, DROP, REOPEN) and two into review (SUBMIT, RESUME): a head each.
    expect(arrows.filter((arrow) => arrow.to === 'draft')).toHaveLength(3);
    expect(sharedHeads(arrows)).toEqual([]);
    expect(arrows.filter((arrow) => arrow.crosses.length > 0)).toEqual([]);
    await page.screenshot({ path: '/tmp/harden/counted-diagram.png', fullPage: true });
  });
});
