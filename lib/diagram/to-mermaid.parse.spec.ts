import { JSDOM } from 'jsdom';
import * as xstate from 'xstate';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { createMachine } from 'xstate';
import { invoiceMachine, paymentMachine } from '../machines/billing-machines.fixture.js';
import { defineMachine } from '../machines/define-machine.js';
import type { McpMachine } from '../machines/machine.interface.js';
import { toMermaid, type McpMermaidTool } from './to-mermaid.js';
import { XStateMachineEngine } from '../machines/xstate-machine.engine.js';
import * as diagrams from './diagram-machines.fixture.js';

describe('toMermaid', () => {
  describe('parsed by Mermaid', () => {
    let dom: JSDOM;
    let mermaid: (typeof import('mermaid'))['default'];

    beforeAll(async () => {
      dom = new JSDOM('');
      // DOMPurify, which Mermaid sanitizes labels with, binds to the global window when first imported.
      (globalThis as { window?: unknown }).window = dom.window;
      mermaid = (await import('mermaid')).default;
    });

    afterAll(() => {
      delete (globalThis as { window?: unknown }).window;
      dom.window.close();
    });

    interface MermaidNode {
      id: string;
      parentId?: string;
      label?: string;
      shape?: string;
      cssClasses?: string;
    }

    /**
     * What Mermaid reads from `text`: state paths by label (below the machine's own composite state when
     * `wrapped`), arrows by path (`[*]` for start and end), and the paths of class `current`.
     */
    async function parse(text: string, wrapped = false): Promise<{ states: string[]; arrows: string[]; current: string[] }> {
      await mermaid.parse(text);
      const { db } = await mermaid.mermaidAPI.getDiagramFromText(text);
      const { nodes, edges } = (
        db as unknown as { getData(): { nodes: MermaidNode[]; edges: Array<{ start: string; end: string; label?: string }> } }
      ).getData();
      const byId = new Map(nodes.map((node) => [node.id, node]));
      const decode = (label = ''): string =>
        label.replace(/ﬂ°°(\d+)¶ß/g, (_, code: string) => String.fromCharCode(Number(code))).replace(/ﬂ°quot¶ß/g, '"');
      const pathOf = (id: string): string => {
        const node = byId.get(id)!;
        if (node.shape === 'stateStart' || node.shape === 'stateEnd') {
          return '[*]';
        }
        const names: string[] = [];
        for (let current: MermaidNode | undefined = node; current; current = current.parentId ? byId.get(current.parentId) : undefined) {
          if (current.shape !== 'divider') {
            names.unshift(decode(current.label));
          }
        }
        return (wrapped ? names.slice(1) : names).join('.');
      };
      const states = nodes.filter((node) => !['stateStart', 'stateEnd', 'divider'].includes(node.shape ?? '')).map(({ id }) => pathOf(id));
      return {
        states: states.filter((path) => path !== ''),
        arrows: edges.map(({ start, end, label }) => `${pathOf(start)} --> ${pathOf(end)}${label ? ` : ${decode(label)}` : ''}`),
        current: nodes.filter((node) => node.cssClasses?.split(' ').includes('current')).map(({ id }) => pathOf(id)),
      };
    }

    /** The same from XState's own reading of the machine: state paths, and arrows labelled with their events. */
    function expected(machine: AnyStateMachine): { states: string[]; arrows: string[] } {
      const states: string[] = [];
      const arrows: string[] = [];
      const visit = (node: AnyStateNode): void => {
        const path = node.path.join('.');
        if (path) {
          states.push(path);
        }
        if (node.type === 'compound') {
          arrows.push(`[*] --> ${node.initial.target[0].path.join('.')}`);
        }
        if (node.type === 'final') {
          arrows.push(`${path} --> [*]`);
        }
        const transitions: Array<[string, ReadonlyArray<{ target?: readonly AnyStateNode[] }>]> = [
          ...node.transitions.entries(),
          ['always', node.always ?? []],
        ];
        for (const [descriptor, list] of transitions) {
          const event = descriptor.startsWith('xstate.done.state.') ? 'onDone' : descriptor;
          for (const transition of list) {
            for (const target of transition.target ?? [node]) {
              arrows.push(`${path} --> ${target.path.join('.')} : ${event}`);
            }
          }
        }
        Object.values(node.states).forEach(visit);
      };
      visit(machine.root);
      return { states, arrows };
    }

    // Arrows with their events only; an arrow from [*] is labelled with start tools, which XState does not know.
    const events = (arrows: string[]): string[] =>
      arrows.map((arrow) => (arrow.startsWith('[*] ') ? arrow.replace(/ : .*$/, '') : arrow.replace(/ : (\S+).*$/, ' : $1'))).sort();

    // Name, machine, tools, a state to highlight, whether the machine is drawn as one composite state.
    const machines: Array<[string, McpMachine, McpMermaidTool[], string, boolean]> = [
      ['invoice', invoiceMachine, diagrams.invoiceTools, 'approved', false],
      ['payment', paymentMachine, diagrams.paymentTools, 'partially_refunded', false],
      ['claim', defineMachine(diagrams.claimConfig), diagrams.claimTools, 'review.legal', false],
      [
        'order',
        defineMachine(diagrams.orderConfig),
        diagrams.orderTools,
        '{"fulfilment":{"shipping":"shipped","billing":"unpaid","audit":{}}}',
        false,
      ],
      ['light', defineMachine(diagrams.lightConfig), diagrams.lightTools, '{"power":"on","colour":"red"}', true],
      ['kiosk', defineMachine(diagrams.kioskConfig), [], 'busy', true],
      ['panel', defineMachine(diagrams.panelConfig), [], '{"screen":{},"sound":"off"}', true],
      ['odd', defineMachine(diagrams.oddConfig), [], 'review.say "hi"', false],
    ];

    it.each(machines)('reads the %s diagram as the machine XState reads', async (_, machine, tools, highlight, wrapped) => {
      const text = toMermaid(machine, { tools, highlight });
      const parsed = await parse(text, wrapped);
      const xstateMachine =
        (machine.xstateMachine as AnyStateMachine | undefined) ?? createMachine(machine.config as Parameters<typeof createMachine>[0]);
      const want = expected(xstateMachine);
      // Mermaid lists states as they are first named; the tree is what counts.
      expect(parsed.states.sort()).toEqual(want.states.sort());
      // A machine drawn as one composite state has an arrow from [*] to itself (path '').
      expect(events(parsed.arrows).filter((arrow) => arrow !== '[*] --> ')).toEqual(events(want.arrows));
      const engine = new XStateMachineEngine(machine, xstate);
      expect(parsed.current.sort()).toEqual(want.states.filter((path) => engine.matches(highlight, path)).sort());
    });

    it('keeps the labels, tools and highlight through the parse', async () => {
      const parsed = await parse(
        toMermaid(defineMachine(diagrams.claimConfig), { tools: diagrams.claimTools, highlight: 'review.finance' }),
      );
      expect(parsed.arrows).toEqual(
        expect.arrayContaining([
          'review.finance --> review.signed : SIGN [withinBudget] (claim.sign)',
          'review --> review.finance : ESCALATE (claim.reroute)',
          'approved --> paid : always [prepaid]',
        ]),
      );
      expect(parsed.current).toEqual(['review', 'review.finance']);
      const odd = await parse(toMermaid(defineMachine(diagrams.oddConfig)));
      expect(odd.arrows).toEqual(expect.arrayContaining(['needs review --> state : go:now', 'needs review --> root : a;b']));
    });
  });
});
