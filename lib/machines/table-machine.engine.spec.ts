import { invoiceMachine } from './billing-machines.fixture.js';
import { defineMachine } from './define-machine.js';
import type { MachineStep } from './machine-engine.interface.js';
import type { McpMachineConfig, McpStateNodeConfig, McpTransitionConfig } from './machine.interface.js';
import { TableMachineEngine } from './table-machine.engine.js';

// The design's running example.
const invoiceConfig = invoiceMachine.config;

const moved = (state: string, context?: Record<string, unknown>): MachineStep => ({
  status: 'moved',
  next: context === undefined ? { state } : { state, context },
});
const ignored: MachineStep = { status: 'ignored' };

const table = (config: McpMachineConfig) => new TableMachineEngine(defineMachine(config));

/** The invoice machine with `review` replaced, to check what the table refuses there. */
const withReview = (review: McpStateNodeConfig): McpMachineConfig => ({
  ...invoiceConfig,
  states: { ...invoiceConfig.states, review },
});

describe('TableMachineEngine', () => {
  describe('on the invoice machine', () => {
    const engine = table(invoiceConfig);
    const step = (state: string, event: string) => engine.transition({ state }, event);

    it('follows the transitions of the table', () => {
      expect(step('draft', 'SUBMIT')).toStrictEqual(moved('review'));
      expect(step('review', 'APPROVE')).toStrictEqual(moved('approved'));
      expect(step('review', 'REJECT')).toStrictEqual(moved('draft'));
      expect(step('approved', 'DISCHARGE')).toStrictEqual(moved('discharged'));
    });

    it('ignores an event the state has no transition for (never "guarded")', () => {
      expect(step('draft', 'APPROVE')).toStrictEqual(ignored);
      expect(step('draft', 'NOPE')).toStrictEqual(ignored);
    });

    it('does not take Object.prototype members for transitions', () => {
      expect(step('draft', 'toString')).toStrictEqual(ignored);
      expect(step('draft', 'constructor')).toStrictEqual(ignored);
    });

    it('matches a state only by its own name', () => {
      expect(engine.matches('review', 'review')).toBe(true);
      expect(engine.matches('review', 'draft')).toBe(false);
      expect(engine.matches('review', 'nowhere')).toBe(false);
    });

    it('lists its bindings that are states as the stored values', () => {
      expect(engine.valuesMatching(['review', 'approved', 'review', 'nowhere', 'toString'])).toEqual(['review', 'approved']);
      expect(engine.valuesMatching([])).toEqual([]);
    });

    it('answers without throwing for a state the machine does not have', () => {
      for (const state of ['archived', '', 'toString', '{"draft":{}}']) {
        expect([state, engine.knows(state)]).toEqual([state, false]);
        expect([state, engine.matches(state, state)]).toEqual([state, false]);
        expect([state, engine.isFinal(state)]).toEqual([state, false]);
        expect([state, engine.transition({ state }, 'SUBMIT')]).toEqual([state, ignored]);
      }
      expect(engine.knows('draft')).toBe(true);
    });
  });

  it("keeps the config's context, unchanged, without sharing objects", () => {
    const engine = table({ ...invoiceConfig, context: { owner: 'ann', tags: ['a'] } });
    const start = engine.initial();
    expect(start).toStrictEqual({ state: 'draft', context: { owner: 'ann', tags: ['a'] } });
    (start.context!.tags as string[]).push('b');
    expect(engine.initial().context).toEqual({ owner: 'ann', tags: ['a'] });
    expect(engine.transition({ state: 'draft' }, 'SUBMIT')).toStrictEqual(moved('review', { owner: 'ann', tags: ['a'] }));
    const stored = { state: 'draft', context: { owner: 'bob', tags: [] } };
    const next = engine.transition(stored, 'SUBMIT');
    expect(next).toStrictEqual(moved('review', { owner: 'bob', tags: [] }));
    expect(next.status === 'moved' && next.next.context).not.toBe(stored.context);
  });

  it('refuses a context that is not a plain object of JSON data', () => {
    expect(() => table({ ...invoiceConfig, context: () => ({}) })).toThrow(
      'Machine "invoice": the root node uses a context that is not a plain object (a context function needs XState to compute it); install xstate (an optional peer) to run it.',
    );
    expect(() => table({ ...invoiceConfig, context: { at: new Date(0) } })).toThrow(
      'Machine "invoice": context.at is an instance of Date;',
    );
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
    const context = { count: 0 };
    expect(engine.transition({ state: 'closed', context }, 'OPEN')).toStrictEqual(moved('open', context));
    expect(engine.transition({ state: 'closed', context }, 'KNOCK')).toStrictEqual(moved('closed', context));
    expect(engine.transition({ state: 'open', context }, 'LEAVE')).toStrictEqual(moved('gone', context));
    expect(engine.transition({ state: 'gone', context }, 'BACK')).toStrictEqual(ignored);
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
    ['invoke', withReview({ invoke: { src: 'check' } }), needsXState('invoked actors ("invoke")')],
    ['an unknown key', withReview({ colour: 'red' }), needsXState('the key "colour"')],
    ['a history state', withReview({ type: 'history' }), needsXState('type "history"')],
    ['a transition array', withReview({ on: { APPROVE: ['approved'] } }), needsXState('several transitions (an array) on event "APPROVE"')],
    ['a target array', withReview({ on: { APPROVE: { target: ['approved'] } } }), needsXState('several targets on event "APPROVE"')],
    ['a targetless transition', withReview({ on: { APPROVE: {} } }), needsXState('a transition without a target on event "APPROVE"')],
    [
      'an undefined transition',
      withReview({ on: { APPROVE: undefined } }),
      needsXState('a transition without a target on event "APPROVE"'),
    ],
    [
      'an unknown transition key',
      withReview({ on: { APPROVE: { target: 'approved', internal: true } as never } }),
      needsXState('the key "internal" on event "APPROVE"'),
    ],
    [
      'a child target',
      withReview({ on: { APPROVE: '.legal' } }),
      needsXState('the target ".legal" on event "APPROVE" (the table runs sibling state names only)'),
    ],
    [
      'an id target',
      withReview({ on: { APPROVE: '#invoice.approved' } }),
      needsXState('the target "#invoice.approved" on event "APPROVE" (the table runs sibling state names only)'),
    ],
    ['a wildcard event', withReview({ on: { '*': 'draft' } }), needsXState('the wildcard event "*"')],
    ['a partial wildcard event', withReview({ on: { 'approve.*': 'draft' } }), needsXState('the wildcard event "approve.*"')],
    ['root transitions', { ...invoiceConfig, on: { CANCEL: '.draft' } }, needsXState('transitions ("on")', 'the root node')],
  ])('refuses %s, naming what needs xstate', (_case, config, message) => {
    expect(() => table(config)).toThrow(message);
  });

  it('refuses parallel states, at the root or in a state, naming xstate', () => {
    expect(() => table(withReview({ type: 'parallel', states: { legal: {}, finance: {} } }))).toThrow(
      `Machine "invoice": state "review" uses parallel states (type: 'parallel'); install xstate (an optional peer) to run it.`,
    );
    expect(() => table({ ...invoiceConfig, type: 'parallel' })).toThrow(
      `Machine "invoice": the root node uses parallel states (type: 'parallel'); install xstate`,
    );
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

  it('refuses a state name with a dot or starting with "{"', () => {
    expect(() => table({ id: 'x', initial: 'a.b', states: { 'a.b': {} } })).toThrow('Machine "x": state name "a.b" contains "."');
    expect(() => table({ id: 'x', initial: '{a', states: { '{a': {} } })).toThrow('Machine "x": state name "{a" starts with "{"');
  });
});
