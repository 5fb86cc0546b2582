import type { McpMachineConfig } from '../machines/machine.interface.js';
import type { McpMermaidTool } from './to-mermaid.js';

/** The invoice tools of the running example, as the registry describes them. */
export const invoiceTools: McpMermaidTool[] = [
  { name: 'invoice.submit', role: { kind: 'transition', machine: 'invoice', states: ['draft'], event: 'SUBMIT' } },
  { name: 'invoice.approve', role: { kind: 'transition', machine: 'invoice', states: ['review'], event: 'APPROVE' } },
  { name: 'invoice.reject', role: { kind: 'transition', machine: 'invoice', states: ['review'], event: 'REJECT' } },
  { name: 'invoice.discharge', role: { kind: 'transition', machine: 'invoice', states: ['approved'], event: 'DISCHARGE' } },
  { name: 'invoice.status', role: { kind: 'read', machine: 'invoice' } },
];
/** The payment tools of the running example. */
export const paymentTools: McpMermaidTool[] = [
  { name: 'payment.authorize', role: { kind: 'start', machine: 'payment', event: 'AUTHORIZE' } },
  { name: 'payment.capture', role: { kind: 'transition', machine: 'payment', states: ['authorized'], event: 'CAPTURE' } },
  { name: 'payment.void', role: { kind: 'transition', machine: 'payment', states: ['authorized'], event: 'VOID' } },
  { name: 'payment.refund', role: { kind: 'transition', machine: 'payment', states: ['captured', 'partially_refunded'], event: 'REFUND' } },
  { name: 'payment.status', role: { kind: 'read', machine: 'payment' } },
];
/** Every tool of the running example. */
export const billingTools = [...invoiceTools, ...paymentTools];

/** Nested states: parent transitions, a relative and an id target, a guarded child, `onDone` and `always`. */
export const claimConfig: McpMachineConfig = {
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
/** Tools bound to the claim machine's states, parents and children. */
export const claimTools: McpMermaidTool[] = [
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
export const orderConfig: McpMachineConfig = {
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
/** Tools bound to the order machine's regions. */
export const orderTools: McpMermaidTool[] = [
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
/** The light machine; a parallel root has no initial state, which `McpMachineConfig` (written for compound roots) requires. */
export const lightConfig = lightRoot as McpMachineConfig;
/** A start tool of the light machine. */
export const lightTools: McpMermaidTool[] = [{ name: 'light.start', role: { kind: 'start', machine: 'light', event: 'TOGGLE' } }];

/** A transition that targets the machine itself: drawn as one composite state. */
export const kioskConfig: McpMachineConfig = {
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
/** The panel machine, typed as a config. */
export const panelConfig = panelRoot as McpMachineConfig;

/** Names Mermaid does not take as ids: spaces, quotes, keywords, clashes with qualified names and with `[*]`'s ids. */
export const oddConfig: McpMachineConfig = {
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
