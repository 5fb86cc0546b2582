import { JSDOM } from 'jsdom';
import * as xstate from 'xstate';
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { createMachine } from 'xstate';
import { invoiceMachine, paymentMachine } from '../machines/billing-machines.fixture.js';
import type { McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { defineMachine } from '../machines/define-machine.js';
import { machineUnknownTarget } from '../machines/machines.messages.js';
import type { McpMachine, McpMachineConfig } from '../machines/machine.interface.js';
import { toMermaid, type McpMermaidTool } from './to-mermaid.js';
import { XStateMachineEngine } from '../machines/xstate-machine.engine.js';

const diagram = (...rows: string[]): string => `${rows.join('\n')}\n`;

// The tools of the running example, as the registry describes them.
const invoiceTools: McpMermaidTool[] = [
  { name: 'invoice.submit', role: { kind: 'transition', machine: 'invoice', states: ['draft'], event: 'SUBMIT' } },
  { name: 'invoice.approve', role: { kind: 'transition', machine: 'invoice', states: ['review'], event: 'APPROVE' } },
  { name: 'invoice.reject', role: { kind: 'transition', machine: 'invoice', states: ['review'], event: 'REJECT' } },
  { name: 'invoice.discharge', role: { kind: 'transition', machine: 'invoice', states: ['approved'], event: 'DISCHARGE' } },
  { name: 'invoice.status', role: { kind: 'read', machine: 'invoice' } },
];
const paymentTools: McpMermaidTool[] = [
  { name: 'payment.authorize', role: { kind: 'start', machine: 'payment', event: 'AUTHORIZE' } },
  { name: 'payment.capture', role: { kind: 'transition', machine: 'payment', states: ['authorized'], event: 'CAPTURE' } },
  { name: 'payment.void', role: { kind: 'transition', machine: 'payment', states: ['authorized'], event: 'VOID' } },
  { name: 'payment.refund', role: { kind: 'transition', machine: 'payment', states: ['captured', 'partially_refunded'], event: 'REFUND' } },
  { name: 'payment.status', role: { kind: 'read', machine: 'payment' } },
];
const billingTools = [...invoiceTools, ...paymentTools];

/** Nested states: parent transitions, a relative and an id target, a guarded child, `onDone` and `always`. */
const claimConfig: McpMachineConfig = {
  id: 'claim',
  initial: 'draft',
  states: {
    draft: { on: { SUBMIT: 'review' } },
    review: {
      initial: 'legal',
      on: { WITHDRAW: 'draft', ESCALATE: '.finance' },
      onDone: 'approved',
      states: {
        legal: { on: { SIGN: 'finance', ESCALATE: '#claim.rejected' } },
        finance: { on: { SIGN: { target: 'signed', guard: 'withinBudget' } } },
        signed: { type: 'final' },
      },
    },
    approved: { always: { target: 'paid', guard: 'prepaid' }, on: { PAY: 'paid' } },
    paid: { type: 'final' },
    rejected: { type: 'final' },
  },
};
const claimTools: McpMermaidTool[] = [
  { name: 'claim.submit', role: { kind: 'transition', machine: 'claim', states: ['draft'], event: 'SUBMIT' } },
  // Bound to the parent: fires the SIGN transitions its children declare.
  { name: 'claim.sign', role: { kind: 'transition', machine: 'claim', states: ['review'], event: 'SIGN' } },
  // Bound to the children: fires the WITHDRAW transition their parent declares.
  { name: 'claim.withdraw', role: { kind: 'transition', machine: 'claim', states: ['review.legal', 'review.finance'], event: 'WITHDRAW' } },
  // In review.legal, legal's own ESCALATE hides review's; in review.finance, review's fires.
  { name: 'claim.escalate', role: { kind: 'transition', machine: 'claim', states: ['review.legal'], event: 'ESCALATE' } },
  { name: 'claim.reroute', role: { kind: 'transition', machine: 'claim', states: ['review.finance'], event: 'ESCALATE' } },
  { name: 'claim.pay', role: { kind: 'transition', machine: 'claim', states: ['approved'], event: 'PAY' } },
  { name: 'invoice.submit', role: { kind: 'transition', machine: 'invoice', states: ['draft'], event: 'SUBMIT' } },
];

/** A parallel state with a transition across its regions and a region without children. */
const orderConfig: McpMachineConfig = {
  id: 'order',
  initial: 'open',
  states: {
    open: { on: { PLACE: 'fulfilment' } },
    fulfilment: {
      type: 'parallel',
      on: { CANCEL: 'cancelled' },
      onDone: 'closed',
      states: {
        shipping: { initial: 'packing', states: { packing: { on: { SHIP: 'shipped' } }, shipped: { type: 'final' } } },
        billing: {
          initial: 'unpaid',
          states: {
            unpaid: { on: { PAY: 'paid', SHIP: 'invoiced' } },
            invoiced: { on: { PAY: 'paid', REFUSE: '#order.fulfilment.shipping.packing' } },
            paid: { type: 'final' },
          },
        },
        audit: {},
      },
    },
    closed: { type: 'final' },
    cancelled: { type: 'final' },
  },
};
const orderTools: McpMermaidTool[] = [
  // The event reaches every active region: the billing region's SHIP fires too.
  { name: 'order.ship', role: { kind: 'transition', machine: 'order', states: ['fulfilment.shipping.packing'], event: 'SHIP' } },
  { name: 'order.pay', role: { kind: 'transition', machine: 'order', states: ['fulfilment.billing'], event: 'PAY' } },
  { name: 'order.cancel', role: { kind: 'transition', machine: 'order', states: ['fulfilment.audit'], event: 'CANCEL' } },
];

/** A parallel machine with a transition of its own: drawn as one composite state. */
const lightRoot: Omit<McpMachineConfig, 'initial'> = {
  id: 'light',
  type: 'parallel',
  on: { RESET: '.power.off' },
  states: {
    power: { initial: 'off', states: { off: { on: { TOGGLE: 'on' } }, on: { on: { TOGGLE: 'off' } } } },
    colour: { initial: 'white', states: { white: { on: { NEXT: 'red' } }, red: { on: { NEXT: 'white' } } } },
  },
};
// A parallel root has no initial state, which `McpMachineConfig` (written for compound roots) requires.
const lightConfig = lightRoot as McpMachineConfig;
const lightTools: McpMermaidTool[] = [{ name: 'light.start', role: { kind: 'start', machine: 'light', event: 'TOGGLE' } }];

/** A transition that targets the machine itself: drawn as one composite state. */
const kioskConfig: McpMachineConfig = {
  id: 'kiosk',
  initial: 'idle',
  states: { idle: { on: { START: 'busy' } }, busy: { on: { RESTART: '#kiosk' } } },
};

/** A parallel machine whose region without children only the machine's own transition names. */
const panelRoot: Omit<McpMachineConfig, 'initial'> = {
  id: 'panel',
  type: 'parallel',
  on: { WAKE: '.screen' },
  states: { screen: {}, sound: { initial: 'on', states: { on: { on: { MUTE: 'off' } }, off: {} } } },
};
const panelConfig = panelRoot as McpMachineConfig;

/** Names Mermaid does not take as ids: spaces, quotes, keywords, clashes with qualified names and with `[*]`'s ids. */
const oddConfig: McpMachineConfig = {
  id: 'odd-machine',
  initial: 'needs review',
  states: {
    'needs review': { on: { 'go:now': 'state', 'a;b': 'root' } },
    state: { on: { NEXT: 'review_legal' } },
    root: {},
    review_legal: { on: { NEXT: 'review' } },
    review: {
      initial: 'legal',
      states: { legal: { on: { NEXT: 'start' } }, start: { on: { NEXT: 'say "hi"' } }, 'say "hi"': {} },
    },
    '2fa': {},
    Note: {},
  },
};

describe('toMermaid', () => {
  it('renders the invoice machine with the tools that fire each transition', () => {
    expect(toMermaid(invoiceMachine, { tools: billingTools })).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> draft',
        '  draft --> review : SUBMIT (invoice.submit)',
        '  review --> approved : APPROVE (invoice.approve)',
        '  review --> draft : REJECT (invoice.reject)',
        '  approved --> discharged : DISCHARGE (invoice.discharge)',
        '  discharged --> [*]',
      ),
    );
  });

  it('labels transitions with their events alone without tools', () => {
    expect(toMermaid(invoiceMachine)).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> draft',
        '  draft --> review : SUBMIT',
        '  review --> approved : APPROVE',
        '  review --> draft : REJECT',
        '  approved --> discharged : DISCHARGE',
        '  discharged --> [*]',
      ),
    );
  });

  it('renders the payment machine (XState setup): guards, a self-loop, the start tool from [*]', () => {
    expect(toMermaid(paymentMachine, { tools: billingTools })).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> pending : payment.authorize',
        '  pending --> authorized : AUTHORIZE (payment.authorize)',
        '  authorized --> captured : CAPTURE (payment.capture)',
        '  authorized --> voided : VOID (payment.void)',
        '  captured --> refunded : REFUND [refundLeavesNothing] (payment.refund)',
        '  captured --> partially_refunded : REFUND [refundLeavesSome] (payment.refund)',
        '  partially_refunded --> refunded : REFUND [refundLeavesNothing] (payment.refund)',
        '  partially_refunded --> partially_refunded : REFUND [refundLeavesSome] (payment.refund)',
        '  voided --> [*]',
        '  refunded --> [*]',
      ),
    );
  });

  it('renders nested states as composite states with qualified ids, and tools through parents and children', () => {
    const text = toMermaid(defineMachine(claimConfig), { tools: claimTools });
    expect(text).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> draft',
        '  state review {',
        '    [*] --> review_legal',
        '    state "legal" as review_legal',
        '    state "finance" as review_finance',
        '    state "signed" as review_signed',
        '    review_legal --> review_finance : SIGN (claim.sign)',
        '    review_finance --> review_signed : SIGN [withinBudget] (claim.sign)',
        '    review_signed --> [*]',
        '  }',
        '  draft --> review : SUBMIT (claim.submit)',
        '  review --> draft : WITHDRAW (claim.withdraw)',
        '  review --> review_finance : ESCALATE (claim.reroute)',
        '  review --> approved : onDone',
        '  review_legal --> rejected : ESCALATE (claim.escalate)',
        '  approved --> paid : PAY (claim.pay)',
        '  approved --> paid : always [prepaid]',
        '  paid --> [*]',
        '  rejected --> [*]',
      ),
    );
  });

  it('renders parallel regions separated by --, with transitions across regions outside the parallel state', () => {
    const lines = toMermaid(defineMachine(orderConfig), { tools: orderTools }).split('\n');
    const fulfilment = lines.indexOf('  state fulfilment {');
    const end = lines.indexOf('  }', fulfilment);
    const inside = lines.slice(fulfilment, end);
    expect(inside.filter((line) => line === '    --')).toHaveLength(2);
    expect(inside).toEqual(
      expect.arrayContaining([
        '    state "shipping" as fulfilment_shipping {',
        '    state "billing" as fulfilment_billing {',
        '    state "audit" as fulfilment_audit',
        '      fulfilment_shipping_packing --> fulfilment_shipping_shipped : SHIP (order.ship)',
        '      fulfilment_billing_unpaid --> fulfilment_billing_invoiced : SHIP (order.ship)',
        '      fulfilment_billing_unpaid --> fulfilment_billing_paid : PAY (order.pay)',
        '      fulfilment_billing_invoiced --> fulfilment_billing_paid : PAY (order.pay)',
      ]),
    );
    expect(lines.slice(end + 1)).toEqual(
      expect.arrayContaining([
        '  fulfilment --> cancelled : CANCEL (order.cancel)',
        '  fulfilment --> closed : onDone',
        '  fulfilment_billing_invoiced --> fulfilment_shipping_packing : REFUSE',
      ]),
    );
    // Regions in document order, each with its own initial state.
    expect(inside.filter((line) => line.includes(' {') || line.includes('[*] -->'))).toEqual([
      '  state fulfilment {',
      '    state "shipping" as fulfilment_shipping {',
      '      [*] --> fulfilment_shipping_packing',
      '    state "billing" as fulfilment_billing {',
      '      [*] --> fulfilment_billing_unpaid',
    ]);
  });

  it('draws a parallel machine with transitions of its own as one composite state', () => {
    expect(toMermaid(defineMachine(lightConfig), { tools: lightTools })).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> light : light.start',
        '  state light {',
        '    state power {',
        '      [*] --> power_off',
        '      state "off" as power_off',
        '      state "on" as power_on',
        '      power_off --> power_on : TOGGLE (light.start)',
        '      power_on --> power_off : TOGGLE',
        '    }',
        '    --',
        '    state colour {',
        '      [*] --> colour_white',
        '      state "white" as colour_white',
        '      state "red" as colour_red',
        '      colour_white --> colour_red : NEXT',
        '      colour_red --> colour_white : NEXT',
        '    }',
        '  }',
        '  light --> power_off : RESET',
      ),
    );
  });

  it('draws a machine that a transition targets as one composite state', () => {
    expect(toMermaid(defineMachine(kioskConfig))).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> kiosk',
        '  state kiosk {',
        '    [*] --> idle',
        '    idle --> busy : START',
        '  }',
        '  busy --> kiosk : RESTART',
      ),
    );
  });

  it('declares a state in its own block when only an arrow outside names it', () => {
    expect(toMermaid(defineMachine(panelConfig))).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> panel',
        '  state panel {',
        '    screen',
        '    --',
        '    state sound {',
        '      [*] --> sound_on',
        '      state "on" as sound_on',
        '      state "off" as sound_off',
        '      sound_on --> sound_off : MUTE',
        '    }',
        '  }',
        '  panel --> screen : WAKE',
      ),
    );
  });

  it('gives every state a valid, unique id and keeps its name as the label', () => {
    expect(toMermaid(defineMachine(oddConfig))).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> needs_review',
        '  state "needs review" as needs_review',
        '  state "state" as state_',
        '  state "root" as root_',
        '  state review {',
        '    [*] --> review_legal_2',
        '    state "legal" as review_legal_2',
        // Mermaid names the [*] of `review` review_start.
        '    state "start" as review_start_2',
        '    state "say #quot;hi#quot;" as review_say__hi_',
        '    review_legal_2 --> review_start_2 : NEXT',
        '    review_start_2 --> review_say__hi_ : NEXT',
        '  }',
        // No arrow names it, so it is declared.
        '  2fa',
        '  state "Note" as Note_',
        '  needs_review --> state_ : go#58;now',
        '  needs_review --> root_ : a#59;b',
        '  state_ --> review_legal : NEXT',
        '  review_legal --> review : NEXT',
      ),
    );
  });

  describe('highlight', () => {
    it('marks the active state of a flat machine', () => {
      expect(toMermaid(invoiceMachine, { highlight: 'review' })).toBe(
        diagram(
          'stateDiagram-v2',
          '  [*] --> draft',
          '  draft --> review : SUBMIT',
          '  review --> approved : APPROVE',
          '  review --> draft : REJECT',
          '  approved --> discharged : DISCHARGE',
          '  discharged --> [*]',
          '  classDef current fill:#fde68a,stroke:#b45309,stroke-width:2px',
          '  class review current',
        ),
      );
    });

    it('marks a nested state and its parents, and every active region of a parallel state', () => {
      expect(toMermaid(defineMachine(claimConfig), { highlight: 'review.finance' }).split('\n').at(-2)).toBe(
        '  class review,review_finance current',
      );
      expect(toMermaid(defineMachine(oddConfig), { highlight: 'review.start' }).split('\n').at(-2)).toBe(
        '  class review,review_start_2 current',
      );
      const highlight = '{"fulfilment":{"shipping":"packing","billing":"invoiced","audit":{}}}';
      expect(toMermaid(defineMachine(orderConfig), { highlight }).split('\n').at(-2)).toBe(
        '  class fulfilment,fulfilment_shipping,fulfilment_shipping_packing,fulfilment_billing,fulfilment_billing_invoiced,fulfilment_audit current',
      );
    });

    it('refuses a value that is not a stored state value of the machine', () => {
      for (const highlight of ['review', 'review.nope', 'nope', '{"fulfilment":{}}', '{not json']) {
        expect(() => toMermaid(defineMachine(claimConfig), { highlight })).toThrow(
          `toMermaid: ${JSON.stringify(highlight)} is not a state value of machine "claim"; highlight takes a value as the store holds it (a dotted path down to a leaf such as "review.legal", or JSON for parallel states).`,
        );
      }
    });
  });

  it('reads a plain config exactly as XState reads the same config', () => {
    for (const [config, tools] of [
      [claimConfig, claimTools],
      [orderConfig, orderTools],
      [lightConfig, lightTools],
      [kioskConfig, []],
      [panelConfig, []],
      [oddConfig, []],
      [invoiceMachine.config, invoiceTools],
    ] as const) {
      const plain = defineMachine(config);
      const xstate = defineMachine(createMachine(config as Parameters<typeof createMachine>[0]));
      expect(plain.xstateMachine).toBeUndefined();
      expect(toMermaid(plain, { tools })).toBe(toMermaid(xstate, { tools }));
    }
  });

  it('is deterministic and ends with a newline', () => {
    const first = toMermaid(defineMachine(orderConfig), { tools: orderTools });
    expect(toMermaid(defineMachine(structuredClone(orderConfig)), { tools: orderTools })).toBe(first);
    expect(first.endsWith('\n')).toBe(true);
    expect(first.endsWith('\n\n')).toBe(false);
  });

  it('names an unknown target of a plain config', () => {
    const broken = defineMachine({ id: 'broken', initial: 'a', states: { a: { on: { GO: 'nowhere' } } } });
    expect(() => toMermaid(broken)).toThrow(machineUnknownTarget('broken', 'a', 'GO', 'nowhere'));
  });

  it('takes the tool definitions of the registry as they are', () => {
    const definitions: McpToolDefinition[] = [];
    expect(toMermaid(invoiceMachine, { tools: definitions })).toBe(toMermaid(invoiceMachine));
  });

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
      ['invoice', invoiceMachine, invoiceTools, 'approved', false],
      ['payment', paymentMachine, paymentTools, 'partially_refunded', false],
      ['claim', defineMachine(claimConfig), claimTools, 'review.legal', false],
      ['order', defineMachine(orderConfig), orderTools, '{"fulfilment":{"shipping":"shipped","billing":"unpaid","audit":{}}}', false],
      ['light', defineMachine(lightConfig), lightTools, '{"power":"on","colour":"red"}', true],
      ['kiosk', defineMachine(kioskConfig), [], 'busy', true],
      ['panel', defineMachine(panelConfig), [], '{"screen":{},"sound":"off"}', true],
      ['odd', defineMachine(oddConfig), [], 'review.say "hi"', false],
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
      const parsed = await parse(toMermaid(defineMachine(claimConfig), { tools: claimTools, highlight: 'review.finance' }));
      expect(parsed.arrows).toEqual(
        expect.arrayContaining([
          'review.finance --> review.signed : SIGN [withinBudget] (claim.sign)',
          'review --> review.finance : ESCALATE (claim.reroute)',
          'approved --> paid : always [prepaid]',
        ]),
      );
      expect(parsed.current).toEqual(['review', 'review.finance']);
      const odd = await parse(toMermaid(defineMachine(oddConfig)));
      expect(odd.arrows).toEqual(expect.arrayContaining(['needs review --> state : go:now', 'needs review --> root : a;b']));
    });
  });
});
