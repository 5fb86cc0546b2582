import { defineMachine } from './define-machine.js';
import type { McpMachineConfig, McpStateNodeConfig, McpTransitionConfig } from './machine.interface.js';
import { TableFsmEngine } from './table-fsm.engine.js';
import { invoiceMachine as sampleInvoiceMachine } from '../../sample/invoice.machine.js';

const invoiceConfig: McpMachineConfig = sampleInvoiceMachine.config;

const table = (config: McpMachineConfig) => new TableFsmEngine(defineMachine(config));

/** The invoice machine with `review` replaced, to check what the table refuses there. */
const withReview = (review: McpStateNodeConfig): McpMachineConfig => ({
  ...invoiceConfig,
  states: { ...invoiceConfig.states, review },
});

describe('TableFsmEngine', () => {
  describe('on the invoice machine', () => {
    const engine = table(invoiceConfig);

    it('describes the machine', () => {
      expect(engine.kind).toBe('table');
      expect(engine.machineId).toBe('invoice');
      expect(engine.initialState()).toBe('draft');
      expect(engine.statePaths()).toEqual(['draft', 'review', 'approved', 'discharged']);
      expect(engine.eventNames()).toEqual(['SUBMIT', 'APPROVE', 'REJECT', 'DISCHARGE']);
    });

    it('follows the transitions of the table', () => {
      expect(engine.transition('draft', 'SUBMIT')).toBe('review');
      expect(engine.transition('review', 'APPROVE')).toBe('approved');
      expect(engine.transition('review', 'REJECT')).toBe('draft');
      expect(engine.transition('approved', 'DISCHARGE')).toBe('discharged');
    });

    it('does not accept an event the state has no transition for', () => {
      expect(engine.transition('draft', 'APPROVE')).toBeUndefined();
      expect(engine.transition('draft', 'NOPE')).toBeUndefined();
    });

    it('does not take Object.prototype members for transitions', () => {
      expect(engine.transition('draft', 'toString')).toBeUndefined();
      expect(engine.transition('draft', 'constructor')).toBeUndefined();
    });

    it('knows final states and accepts nothing there', () => {
      expect(engine.isFinal('discharged')).toBe(true);
      expect(engine.isFinal('approved')).toBe(false);
      expect(engine.transition('discharged', 'SUBMIT')).toBeUndefined();
    });

    it('matches a state only by its own name', () => {
      expect(engine.matches('review', 'review')).toBe(true);
      expect(engine.matches('review', 'draft')).toBe(false);
      expect(engine.matches('review', 'nowhere')).toBe(false);
    });

    it('refuses a state the machine does not have', () => {
      const message = 'Machine "invoice" has no state "archived".';
      expect(() => engine.transition('archived', 'SUBMIT')).toThrow(message);
      expect(() => engine.matches('archived', 'draft')).toThrow(message);
      expect(() => engine.isFinal('archived')).toThrow(message);
    });
  });

  it('runs { target } transitions, self-transitions and behaviour-neutral keys', () => {
    const engine = table({
      id: 'door',
      initial: 'closed',
      description: 'a door',
      context: { count: 0 },
      states: {
        closed: {
          description: 'shut',
          meta: { colour: 'red' },
          tags: ['shut'],
          on: { OPEN: { target: 'open', description: 'open it' } as McpTransitionConfig, KNOCK: { target: 'closed', reenter: true } },
        },
        open: { on: { CLOSE: 'closed', LEAVE: 'gone' } },
        gone: { type: 'final', output: { ok: true }, on: { BACK: 'open' } },
      },
    });
    expect(engine.transition('closed', 'OPEN')).toBe('open');
    expect(engine.transition('closed', 'KNOCK')).toBe('closed');
    expect(engine.transition('open', 'LEAVE')).toBe('gone');
    expect(engine.transition('gone', 'BACK')).toBeUndefined();
    expect(engine.eventNames()).toEqual(['OPEN', 'KNOCK', 'CLOSE', 'LEAVE', 'BACK']);
  });

  it('names the machine, the state and the guard in the message', () => {
    expect(() => table(withReview({ on: { APPROVE: { target: 'approved', guard: 'small' } } }))).toThrow(
      'Machine "invoice": state "review" uses a guard on event "APPROVE"; install xstate (an optional peer) to run it.',
    );
  });

  const needsXState = (feature: string, state = 'state "review"') =>
    `Machine "invoice": ${state} uses ${feature}; install xstate (an optional peer) to run it.`;

  it.each<[string, McpMachineConfig, string]>([
    ['nested states', withReview({ initial: 'legal', states: { legal: {} } }), needsXState('nested states')],
    ['actions', withReview({ on: { APPROVE: { target: 'approved', actions: 'log' } } }), needsXState('actions on event "APPROVE"')],
    ['entry actions', withReview({ entry: 'log' }), needsXState('entry actions ("entry")')],
    ['exit actions', withReview({ exit: 'log' }), needsXState('exit actions ("exit")')],
    ['always', withReview({ always: 'approved' }), needsXState('eventless transitions ("always")')],
    ['after', withReview({ after: { 1000: 'draft' } }), needsXState('delayed transitions ("after")')],
    ['invoke', withReview({ invoke: { src: 'check' } }), needsXState('invoked actors ("invoke")')],
    ['an unknown key', withReview({ colour: 'red' }), needsXState('the key "colour"')],
    ['a history state', withReview({ type: 'history' }), needsXState('type "history"')],
    ['a transition array', withReview({ on: { APPROVE: ['approved'] } }), needsXState('several transitions (an array) on event "APPROVE"')],
    ['a target array', withReview({ on: { APPROVE: { target: ['approved'] } } }), needsXState('several targets on event "APPROVE"')],
    ['a targetless transition', withReview({ on: { APPROVE: {} } }), needsXState('a transition without a target on event "APPROVE"')],
    ['an undefined transition', withReview({ on: { APPROVE: undefined } }), needsXState('a transition without a target on event "APPROVE"')],
    ['an unknown transition key', withReview({ on: { APPROVE: { target: 'approved', internal: true } as never } }), needsXState('the key "internal" on event "APPROVE"')],
    ['a child target', withReview({ on: { APPROVE: '.legal' } }), needsXState('the target ".legal" on event "APPROVE" (the table runs sibling state names only)')],
    ['an id target', withReview({ on: { APPROVE: '#invoice.approved' } }), needsXState('the target "#invoice.approved" on event "APPROVE" (the table runs sibling state names only)')],
    ['a wildcard event', withReview({ on: { '*': 'draft' } }), needsXState('the wildcard event "*"')],
    ['a partial wildcard event', withReview({ on: { 'approve.*': 'draft' } }), needsXState('the wildcard event "approve.*"')],
    ['root transitions', { ...invoiceConfig, on: { CANCEL: '.draft' } }, needsXState('transitions ("on")', 'the root node')],
  ])('refuses %s, naming what needs xstate', (_case, config, message) => {
    expect(() => table(config)).toThrow(message);
  });

  it('refuses parallel states, at the root or in a state', () => {
    expect(() => table(withReview({ type: 'parallel', states: { legal: {}, finance: {} } }))).toThrow(
      `Machine "invoice": state "review" is parallel (type: 'parallel'); nestjs-mcp-fsm stores one state path per instance, so parallel states are not supported.`,
    );
    expect(() => table({ ...invoiceConfig, type: 'parallel' })).toThrow('Machine "invoice": the root node is parallel');
  });

  it('refuses a transition to an unknown state', () => {
    expect(() => table(withReview({ on: { APPROVE: 'aproved' } }))).toThrow(
      'Machine "invoice": state "review" sends event "APPROVE" to unknown state "aproved".',
    );
  });

  it('refuses an initial state that is not a state', () => {
    expect(() => table({ ...invoiceConfig, initial: 'drafts' })).toThrow(
      'Machine "invoice": initial state "drafts" is not one of its states (draft, review, approved, discharged).',
    );
    expect(() => table({ id: 'empty', initial: 'a', states: {} })).toThrow(
      'Machine "empty": initial state "a" is not one of its states (none).',
    );
  });

  it('refuses a state name with a dot', () => {
    expect(() => table({ id: 'x', initial: 'a.b', states: { 'a.b': {} } })).toThrow(
      'Machine "x": state name "a.b" contains "."',
    );
  });
});
