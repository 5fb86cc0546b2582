import { createMachine } from 'xstate';
import { invoiceMachine, paymentMachine } from '../machines/billing-machines.fixture.js';
import type { McpToolDefinition } from '../registry/mcp-tool-definition.interface.js';
import { defineMachine } from '../machines/define-machine.js';
import { machineUnknownTarget } from '../machines/machines.messages.js';
import { toMermaid } from './to-mermaid.js';
import {
  invoiceTools,
  billingTools,
  claimConfig,
  claimTools,
  orderConfig,
  orderTools,
  lightConfig,
  lightTools,
  kioskConfig,
  panelConfig,
  oddConfig,
} from './diagram-machines.fixture.js';

const diagram = (...rows: string[]): string => `${rows.join('\n')}\n`;

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

  it('draws a call that waits for approval: into the waiting state, then where the approved event leads, or back', () => {
    const wire = defineMachine(
      { id: 'wire', initial: 'ready', states: { ready: { on: { SEND: 'sent' } }, awaiting: {}, sent: { type: 'final' } } },
      { stateHandleKey: 'wireId' },
    );
    const send = {
      name: 'wire.send',
      role: {
        kind: 'transition',
        machine: 'wire',
        states: ['ready'],
        event: 'SEND',
        approval: { waitIn: 'awaiting', approve: 'wire.approve', reject: 'wire.reject' },
      },
    };
    const decide = (name: string) => ({ name, role: { kind: 'transition', machine: 'wire', states: ['awaiting'], event: 'SEND' } });
    expect(toMermaid(wire, { tools: [send, decide('wire.approve'), decide('wire.reject')] })).toBe(
      diagram(
        'stateDiagram-v2',
        '  [*] --> ready',
        '  ready --> sent : SEND (wire.send)',
        '  ready --> awaiting : SEND (wire.send, waits for approval)',
        '  awaiting --> sent : SEND (wire.approve)',
        '  awaiting --> ready : (wire.reject)',
        '  sent --> [*]',
      ),
    );
    expect(toMermaid(wire, { tools: [send] })).not.toContain('wire.approve');
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
});
