import * as xstate from 'xstate';
import { setup } from 'xstate';
import { defineMachine } from './define-machine.js';
import type { McpMachineConfig } from './machine.interface.js';
import { XStateFsmEngine } from './xstate-fsm.engine.js';
import { invoiceMachine as sampleInvoiceMachine } from '../../sample/invoice.machine.js';

const invoiceConfig: McpMachineConfig = sampleInvoiceMachine.config;

const engineFor = (config: McpMachineConfig | Parameters<typeof defineMachine>[0]) =>
  new XStateFsmEngine(defineMachine(config), xstate);

describe('XStateFsmEngine', () => {
  describe('on the invoice machine', () => {
    const engine = engineFor(invoiceConfig);

    it('describes the machine', () => {
      expect(engine.kind).toBe('xstate');
      expect(engine.machineId).toBe('invoice');
      expect(engine.initialState()).toBe('draft');
      expect(engine.statePaths()).toEqual(['draft', 'review', 'approved', 'discharged']);
      expect(engine.eventNames()).toEqual(['SUBMIT', 'APPROVE', 'REJECT', 'DISCHARGE']);
    });

    it('follows the transitions and refuses what a state does not accept', () => {
      expect(engine.transition('draft', 'SUBMIT')).toBe('review');
      expect(engine.transition('review', 'REJECT')).toBe('draft');
      expect(engine.transition('draft', 'APPROVE')).toBeUndefined();
      expect(engine.transition('draft', 'toString')).toBeUndefined();
    });

    it('knows the final state and accepts nothing there', () => {
      expect(engine.isFinal('discharged')).toBe(true);
      expect(engine.isFinal('approved')).toBe(false);
      expect(engine.transition('discharged', 'SUBMIT')).toBeUndefined();
    });

    it('refuses a state the machine does not have', () => {
      expect(() => engine.transition('archived', 'SUBMIT')).toThrow('Machine "invoice" has no state "archived".');
      expect(() => engine.matches('', 'draft')).toThrow('Machine "invoice" has no state "".');
    });
  });

  describe('on a nested machine', () => {
    const engine = engineFor({
      id: 'invoice',
      initial: 'draft',
      on: { ARCHIVE: '.archived' },
      states: {
        draft: { on: { SUBMIT: 'review' } },
        review: {
          initial: 'legal',
          on: { REJECT: 'draft' },
          states: {
            legal: { on: { OK: 'finance' } },
            finance: { on: { OK: '#invoice.approved' } },
            last: { type: 'history' },
          },
        },
        approved: {},
        archived: { type: 'final' },
      },
    });

    it('lists parent and child paths, without history pseudo-states', () => {
      expect(engine.statePaths()).toEqual([
        'draft',
        'review',
        'review.legal',
        'review.finance',
        'approved',
        'archived',
      ]);
      expect(engine.eventNames()).toEqual(['ARCHIVE', 'SUBMIT', 'REJECT', 'OK']);
    });

    it('enters the initial child and returns leaf paths', () => {
      expect(engine.transition('draft', 'SUBMIT')).toBe('review.legal');
      expect(engine.transition('review.legal', 'OK')).toBe('review.finance');
      expect(engine.transition('review.finance', 'OK')).toBe('approved');
    });

    it('takes a parent transition from a child state, and a root transition anywhere', () => {
      expect(engine.transition('review.finance', 'REJECT')).toBe('draft');
      expect(engine.transition('review.legal', 'ARCHIVE')).toBe('archived');
      expect(engine.isFinal('archived')).toBe(true);
    });

    it('resolves a stored parent path to its initial child', () => {
      expect(engine.transition('review', 'OK')).toBe('review.finance');
      expect(engine.matches('review', 'review.legal')).toBe(true);
    });

    it('matches a state against its ancestors, not its siblings or children', () => {
      expect(engine.matches('review.legal', 'review')).toBe(true);
      expect(engine.matches('review.legal', 'review.legal')).toBe(true);
      expect(engine.matches('review.legal', 'review.finance')).toBe(false);
      expect(engine.matches('draft', 'review')).toBe(false);
      expect(engine.matches('draft', 'nowhere')).toBe(false);
    });
  });

  describe('with guards from setup', () => {
    const machine = setup({
      types: {} as { events: { type: 'APPROVE'; input: { amount: number } } | { type: 'SUBMIT' | 'PING' } },
      guards: {
        small: ({ event, context }) => event.type === 'APPROVE' && event.input.amount <= context.limit,
      },
    }).createMachine({
      id: 'invoice',
      context: { limit: 100 },
      initial: 'review',
      states: {
        review: {
          on: {
            APPROVE: [{ target: 'approved', guard: 'small' }, { target: 'escalated', guard: () => false }],
            PING: { target: 'review' },
            SUBMIT: {},
          },
        },
        approved: {},
        escalated: {},
      },
    });
    const engine = engineFor(machine);

    it('passes the tool arguments as event.input, against the initial context', () => {
      expect(engine.transition('review', 'APPROVE', { amount: 100 })).toBe('approved');
      expect(engine.transition('review', 'APPROVE', { amount: 500 })).toBeUndefined();
    });

    it('tells a self-transition and a targetless transition from an ignored event', () => {
      expect(engine.transition('review', 'PING')).toBe('review');
      expect(engine.transition('review', 'SUBMIT')).toBe('review');
      expect(engine.transition('review', 'NOPE')).toBeUndefined();
    });
  });

  it('never runs actions', () => {
    let runs = 0;
    const machine = setup({ actions: { count: () => void runs++ } }).createMachine({
      id: 'door',
      initial: 'closed',
      entry: 'count',
      states: {
        closed: { exit: 'count', on: { OPEN: { target: 'open', actions: 'count' } } },
        open: { entry: 'count' },
      },
    });
    const engine = engineFor(machine);
    expect(engine.transition(engine.initialState(), 'OPEN')).toBe('open');
    expect(runs).toBe(0);
  });

  it('follows eventless transitions, from the initial state and after an event', () => {
    const engine = engineFor({
      id: 'flow',
      initial: 'start',
      states: {
        start: { always: 'idle' },
        idle: { on: { GO: 'checking' } },
        checking: { always: 'done' },
        done: { type: 'final' },
      },
    });
    expect(engine.initialState()).toBe('idle');
    expect(engine.transition('idle', 'GO')).toBe('done');
  });

  it('finishes when a nested final state leads to a top-level final state', () => {
    const engine = engineFor({
      id: 'job',
      initial: 'running',
      states: {
        running: {
          initial: 'step',
          states: { step: { on: { FINISH: 'finished' } }, finished: { type: 'final' } },
          onDone: 'complete',
        },
        complete: { type: 'final', on: { RESTART: 'running' } },
      },
    });
    expect(engine.transition('running.step', 'FINISH')).toBe('complete');
    expect(engine.isFinal('running.finished')).toBe(false);
    expect(engine.isFinal('complete')).toBe(true);
    expect(engine.transition('complete', 'RESTART')).toBeUndefined();
  });

  it('refuses parallel states, nested or at the root', () => {
    const parallel = `is parallel (type: 'parallel'); nestjs-mcp-fsm stores one state path per instance, so parallel states are not supported.`;
    expect(() =>
      engineFor({
        id: 'order',
        initial: 'open',
        states: { open: { type: 'parallel', states: { pay: {}, ship: {} } } },
      }),
    ).toThrow(`Machine "order": state "open" ${parallel}`);
    expect(() =>
      engineFor({ id: 'order', type: 'parallel', initial: 'pay', states: { pay: {}, ship: {} } }),
    ).toThrow(`Machine "order": the root node ${parallel}`);
  });

  it('refuses a state name with a dot, and a machine without states', () => {
    expect(() => engineFor({ id: 'x', initial: 'a', states: { a: { initial: 'b.c', states: { 'b.c': {} } } } })).toThrow(
      'Machine "x": state name "b.c" contains "."',
    );
    expect(() => engineFor({ id: 'empty', initial: 'a', states: {} })).toThrow(
      'Machine "empty": initial state "a" is not one of its states (none).',
    );
  });

  it('lets XState refuse a config it cannot build', () => {
    expect(() => engineFor({ id: 'x', initial: 'a', states: { a: { on: { GO: 'nowhere' } } } })).toThrow(/nowhere/);
    expect(() => engineFor({ id: 'x', initial: 'q', states: { a: {} } })).toThrow(/"q" not found/);
  });
});
