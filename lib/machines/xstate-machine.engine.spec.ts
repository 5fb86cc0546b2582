import * as xstate from 'xstate';
import { assign, createMachine, enqueueActions, log, raise, sendTo, setup } from 'xstate';
import { invoiceMachine } from './billing-machines.fixture.js';
import { defineMachine } from './define-machine.js';
import type { MachineState } from './machine-engine.interface.js';
import type { McpMachineConfig } from './machine.interface.js';
import { XStateMachineEngine } from './xstate-machine.engine.js';

// The design's running example.
const invoiceConfig = invoiceMachine.config;

const engineFor = (config: McpMachineConfig | Parameters<typeof defineMachine>[0]) =>
  new XStateMachineEngine(defineMachine(config), xstate);

describe('XStateMachineEngine', () => {
  describe('on the invoice machine', () => {
    const engine = engineFor(invoiceConfig);

    it('describes the machine', () => {
      expect(engine.kind).toBe('xstate');
      expect(engine.machineId).toBe('invoice');
      expect(engine.initial()).toStrictEqual({ state: 'draft' });
      expect(engine.statePaths()).toEqual(['draft', 'review', 'approved', 'discharged']);
      expect(engine.eventNames()).toEqual(['SUBMIT', 'APPROVE', 'REJECT', 'DISCHARGE']);
    });

    it('follows the transitions and ignores what a state does not accept', () => {
      expect(engine.transition({ state: 'draft' }, 'SUBMIT')).toStrictEqual({ status: 'moved', next: { state: 'review' } });
      expect(engine.transition({ state: 'review' }, 'REJECT')).toStrictEqual({ status: 'moved', next: { state: 'draft' } });
      expect(engine.transition({ state: 'draft' }, 'APPROVE')).toStrictEqual({ status: 'ignored' });
      expect(engine.transition({ state: 'draft' }, 'toString')).toStrictEqual({ status: 'ignored' });
    });

    it('knows the final state and ignores every event there', () => {
      expect(engine.isFinal('discharged')).toBe(true);
      expect(engine.isFinal('approved')).toBe(false);
      expect(engine.transition({ state: 'discharged' }, 'SUBMIT')).toStrictEqual({ status: 'ignored' });
    });

    it('lists the stored values of its bindings', () => {
      expect(engine.valuesMatching(['review', 'draft', 'review', 'nowhere'])).toEqual(['review', 'draft']);
    });

    it('answers without throwing for a state the machine does not have', () => {
      for (const state of ['archived', '', 'draft.x', '{', '{"draft":{}}', 'constructor', 'toString', '__proto__']) {
        expect([state, engine.knows(state)]).toEqual([state, false]);
        expect([state, engine.matches(state, 'draft')]).toEqual([state, false]);
        expect([state, engine.isFinal(state)]).toEqual([state, false]);
        expect([state, engine.transition({ state }, 'SUBMIT')]).toEqual([state, { status: 'ignored' }]);
      }
      expect(engine.knows('draft')).toBe(true);
    });

    it('remembers the steps of a machine without guards, actions or context, and shares them read-only', () => {
      const first = engine.transition({ state: 'draft' }, 'SUBMIT');
      const again = engine.transition({ state: 'draft' }, 'SUBMIT');
      expect(again).toBe(first);
      expect(Object.isFrozen(first)).toBe(true);
      expect(() => {
        (first as { next: MachineState }).next.state = 'approved';
      }).toThrow(TypeError);
      expect(engine.transition({ state: 'draft' }, 'SUBMIT')).toStrictEqual({ status: 'moved', next: { state: 'review' } });
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
          },
        },
        approved: {},
        archived: { type: 'final' },
        constructor: {},
      },
    });
    const at = (state: string) => ({ state });
    const moved = (state: string) => ({ status: 'moved', next: { state } });

    it('lists parent and child paths', () => {
      expect(engine.statePaths()).toEqual(['draft', 'review', 'review.legal', 'review.finance', 'approved', 'archived', 'constructor']);
      expect(engine.eventNames()).toEqual(['ARCHIVE', 'SUBMIT', 'REJECT', 'OK']);
    });

    it("tells the events a state accepts: its own, its ancestors' and its descendants'", () => {
      expect(engine.eventsWhile('draft')).toEqual(['ARCHIVE', 'SUBMIT']);
      expect(engine.eventsWhile('review')).toEqual(['ARCHIVE', 'REJECT', 'OK']);
      expect(engine.eventsWhile('review.finance')).toEqual(['ARCHIVE', 'REJECT', 'OK']);
      expect(engine.eventsWhile('archived')).toEqual([]);
    });

    it('enters the initial child and stores leaf paths', () => {
      expect(engine.transition(at('draft'), 'SUBMIT')).toStrictEqual(moved('review.legal'));
      expect(engine.transition(at('review.legal'), 'OK')).toStrictEqual(moved('review.finance'));
      expect(engine.transition(at('review.finance'), 'OK')).toStrictEqual(moved('approved'));
    });

    it('takes a parent transition from a child state, and a root transition anywhere', () => {
      expect(engine.transition(at('review.finance'), 'REJECT')).toStrictEqual(moved('draft'));
      expect(engine.transition(at('review.legal'), 'ARCHIVE')).toStrictEqual(moved('archived'));
      expect(engine.isFinal('archived')).toBe(true);
    });

    it('knows leaf paths only: a parent path is no state an instance can be in', () => {
      expect(engine.knows('review.legal')).toBe(true);
      expect(engine.knows('review')).toBe(false);
      expect(engine.knows('review.last')).toBe(false);
      expect(engine.knows('{"review":"legal"}')).toBe(false);
      expect(engine.matches('review', 'review')).toBe(false);
      expect(engine.transition(at('review'), 'OK')).toStrictEqual({ status: 'ignored' });
    });

    it('matches a state against its ancestors, not its siblings or children', () => {
      expect(engine.matches('review.legal', 'review')).toBe(true);
      expect(engine.matches('review.legal', 'review.legal')).toBe(true);
      expect(engine.matches('review.legal', 'review.finance')).toBe(false);
      expect(engine.matches('review.legal', 'review.legal.deeper')).toBe(false);
      expect(engine.matches('draft', 'review')).toBe(false);
      expect(engine.matches('draft', 'nowhere')).toBe(false);
      expect(engine.matches('draft', '')).toBe(false);
    });

    it('does not take Object.prototype members for active states (as snapshot.matches does)', () => {
      expect(engine.matches('review.legal', 'constructor')).toBe(false);
      expect(engine.matches('review.legal', 'review.toString')).toBe(false);
      expect(engine.matches('constructor', 'constructor')).toBe(true);
    });

    it('lists the leaf values under each binding, in document order', () => {
      expect(engine.valuesMatching(['review'])).toEqual(['review.legal', 'review.finance']);
      expect(engine.valuesMatching(['review.finance', 'draft', 'review'])).toEqual(['review.finance', 'draft', 'review.legal']);
      expect(engine.valuesMatching(['review.last', 'review.legal.deeper', 'nowhere', 'toString'])).toEqual([]);
    });
  });

  describe('with guards from setup', () => {
    const machine = setup({
      types: {} as {
        context: { limit: number };
        events: { type: 'APPROVE'; input: { amount: number } } | { type: 'SUBMIT' | 'PING' };
      },
      guards: {
        small: ({ event, context }) => event.type === 'APPROVE' && event.input.amount <= context.limit,
        isHuge: () => false,
      },
    }).createMachine({
      id: 'invoice',
      context: { limit: 100 },
      initial: 'review',
      states: {
        review: {
          on: {
            APPROVE: [
              { target: 'approved', guard: 'small' },
              { target: 'escalated', guard: { type: 'isHuge' } },
              {
                target: 'escalated',
                guard: function overBudget() {
                  return false;
                },
              },
              { target: 'escalated', guard: () => false },
            ],
            PING: { target: 'review' },
            SUBMIT: {},
          },
        },
        approved: {},
        escalated: {},
      },
    });
    const engine = engineFor(machine);
    const review = engine.initial();

    it('decides each step again when a guard reads the input, even without context', () => {
      const gated = engineFor(
        setup({ guards: { ok: ({ event }) => (event as { input?: { ok?: boolean } }).input?.ok === true } }).createMachine({
          id: 'door',
          initial: 'shut',
          states: { shut: { on: { OPEN: { target: 'open', guard: 'ok' } } }, open: {} },
        }),
      );
      expect(gated.transition({ state: 'shut' }, 'OPEN', { ok: true })).toStrictEqual({ status: 'moved', next: { state: 'open' } });
      expect(gated.transition({ state: 'shut' }, 'OPEN', { ok: false })).toStrictEqual({ status: 'guarded', guards: ['ok'] });
      expect(gated.transition({ state: 'shut' }, 'OPEN', { ok: true })).toStrictEqual({ status: 'moved', next: { state: 'open' } });
    });

    it('passes the tool arguments as event.input, against the instance context', () => {
      expect(review).toStrictEqual({ state: 'review', context: { limit: 100 } });
      expect(engine.transition(review, 'APPROVE', { amount: 100 })).toStrictEqual({
        status: 'moved',
        next: { state: 'approved', context: { limit: 100 } },
      });
      expect(engine.transition({ state: 'review', context: { limit: 1000 } }, 'APPROVE', { amount: 500 })).toStrictEqual({
        status: 'moved',
        next: { state: 'approved', context: { limit: 1000 } },
      });
    });

    it('uses the initial context for an instance stored without one', () => {
      expect(engine.transition({ state: 'review' }, 'APPROVE', { amount: 100 })).toMatchObject({ status: 'moved' });
      expect(engine.transition({ state: 'review' }, 'APPROVE', { amount: 101 })).toMatchObject({ status: 'guarded' });
    });

    it('names every guard that said no: string, { type }, function name, inline', () => {
      expect(engine.transition(review, 'APPROVE', { amount: 500 })).toStrictEqual({
        status: 'guarded',
        guards: ['small', 'isHuge', 'overBudget', 'inline guard'],
      });
    });

    it('tells a self-transition and a targetless transition from an ignored event', () => {
      expect(engine.transition(review, 'PING')).toStrictEqual({ status: 'moved', next: review });
      expect(engine.transition(review, 'SUBMIT')).toStrictEqual({ status: 'moved', next: review });
      expect(engine.transition(review, 'NOPE')).toStrictEqual({ status: 'ignored' });
    });
  });

  describe('guarded or ignored', () => {
    const engine = engineFor(
      setup({ guards: { never: () => false } }).createMachine({
        id: 'gate',
        initial: 'outer',
        states: {
          outer: {
            initial: 'inner',
            on: { 'ticket.*': { target: 'done', guard: 'never' } },
            states: { inner: { on: { OPEN: { target: '#gate.done', guard: 'never' }, CLOSE: '#gate.done' } } },
          },
          other: { on: { OPEN: { target: 'done', guard: 'never' } } },
          done: { type: 'final', on: { OPEN: { target: 'outer', guard: 'never' } } },
        },
      }),
    );

    it('is guarded when transitions for the event exist in an active state node but every guard said no', () => {
      expect(engine.transition({ state: 'outer.inner' }, 'OPEN')).toStrictEqual({ status: 'guarded', guards: ['never'] });
      expect(engine.transition({ state: 'outer.inner' }, 'ticket.sold')).toStrictEqual({ status: 'guarded', guards: ['never'] });
    });

    it('is ignored when no active state node has a transition for the event, or the machine is done', () => {
      expect(engine.transition({ state: 'outer.inner' }, 'NOPE')).toStrictEqual({ status: 'ignored' });
      expect(engine.transition({ state: 'other' }, 'CLOSE')).toStrictEqual({ status: 'ignored' });
      expect(engine.transition({ state: 'done' }, 'OPEN')).toStrictEqual({ status: 'ignored' });
    });
  });

  describe('with a context computed from the machine input', () => {
    const engine = engineFor(
      setup({ types: { input: {} as { amount?: number } | undefined } }).createMachine({
        id: 'payment',
        initial: 'pending',
        context: ({ input }) => ({ authorized: input?.amount ?? 0 }),
        states: { pending: { on: { CAPTURE: 'captured' } }, captured: { type: 'final' } },
      }),
    );

    it("starts an instance from a start tool's arguments, and from no input at bootstrap", () => {
      expect(engine.initial({ amount: 12.5, currency: 'EUR' })).toStrictEqual({ state: 'pending', context: { authorized: 12.5 } });
      expect(engine.initial()).toStrictEqual({ state: 'pending', context: { authorized: 0 } });
    });
  });

  describe('with context and assign', () => {
    // Two distinct approvers are needed; the same approver twice changes nothing.
    const approvals = setup({
      types: {} as { context: { approvers: string[] }; events: { type: 'APPROVE'; input: { approver: string } } },
      guards: {
        secondApprover: ({ context, event }) => context.approvers.length === 1 && !context.approvers.includes(event.input.approver),
        firstApprover: ({ context }) => context.approvers.length === 0,
      },
      actions: {
        recordApprover: assign({ approvers: ({ context, event }) => [...context.approvers, event.input.approver] }),
      },
    }).createMachine({
      id: 'payment',
      context: { approvers: [] },
      initial: 'pending',
      states: {
        pending: {
          on: {
            APPROVE: [
              { target: 'approved', guard: 'secondApprover', actions: 'recordApprover' },
              { guard: 'firstApprover', actions: 'recordApprover' },
            ],
          },
        },
        approved: { type: 'final' },
      },
    });
    const engine = engineFor(approvals);
    const approve = (from: MachineState, approver: string) => engine.transition(from, 'APPROVE', { approver });

    it('moves to approved only on the second distinct approver', () => {
      const start = engine.initial();
      expect(start).toStrictEqual({ state: 'pending', context: { approvers: [] } });

      const first = approve(start, 'alice');
      expect(first).toStrictEqual({ status: 'moved', next: { state: 'pending', context: { approvers: ['alice'] } } });
      if (first.status !== 'moved') throw new Error('unreachable');

      expect(approve(first.next, 'alice')).toStrictEqual({ status: 'guarded', guards: ['secondApprover', 'firstApprover'] });
      expect(approve(first.next, 'bob')).toStrictEqual({
        status: 'moved',
        next: { state: 'approved', context: { approvers: ['alice', 'bob'] } },
      });
      expect(engine.isFinal('approved')).toBe(true);
    });

    it('copies context in and out, so no instance shares objects with another or with the engine', () => {
      const from = { state: 'pending', context: { approvers: [] as string[] } };
      const step = approve(from, 'alice');
      expect(from.context.approvers).toEqual([]);
      if (step.status !== 'moved') throw new Error('unreachable');
      (step.next.context!.approvers as string[]).push('mallory');
      expect(engine.initial().context).toEqual({ approvers: [] });
      (engine.initial().context!.approvers as string[]).push('mallory');
      expect(engine.initial().context).toEqual({ approvers: [] });
      expect(approve({ state: 'pending' }, 'alice')).toMatchObject({ next: { context: { approvers: ['alice'] } } });
    });

    it('applies entry, exit and transition assigns, in XState order', () => {
      const engine = engineFor(
        setup({
          types: {} as { context: { log: string[] } },
          actions: { note: assign({ log: ({ context }, text: string) => [...context.log, text] }) },
        }).createMachine({
          id: 'steps',
          context: { log: [] },
          initial: 'a',
          entry: { type: 'note', params: 'root' },
          states: {
            a: {
              entry: assign({ log: ({ context }) => [...context.log, 'enter a'] }),
              exit: { type: 'note', params: 'exit a' },
              on: { GO: { target: 'b', actions: { type: 'note', params: 'go' } } },
            },
            b: { entry: { type: 'note', params: 'enter b' } },
          },
        }),
      );
      const start = engine.initial();
      expect(start).toStrictEqual({ state: 'a', context: { log: ['root', 'enter a'] } });
      expect(engine.transition(start, 'GO')).toStrictEqual({
        status: 'moved',
        next: { state: 'b', context: { log: ['root', 'enter a', 'exit a', 'go', 'enter b'] } },
      });
    });

    it('runs eventless transitions and raised events within the step', () => {
      const engine = engineFor(
        createMachine({
          types: {} as { context: { count: number } },
          id: 'counter',
          context: { count: 0 },
          initial: 'idle',
          states: {
            idle: { on: { START: { target: 'counting', actions: raise({ type: 'TICK' }) } } },
            counting: {
              on: { TICK: { actions: assign({ count: ({ context }) => context.count + 1 }) } },
              always: { target: 'done', guard: ({ context }) => context.count >= 1 },
            },
            done: {},
          },
        }),
      );
      expect(engine.transition(engine.initial(), 'START')).toStrictEqual({
        status: 'moved',
        next: { state: 'done', context: { count: 1 } },
      });
    });

    it('refuses context that is not JSON data, naming where', () => {
      const engine = engineFor({
        id: 'clock',
        context: { at: null },
        initial: 'idle',
        states: { idle: { on: { STAMP: { actions: assign({ at: () => new Date(0) }) } } } },
      });
      expect(() => engine.transition(engine.initial(), 'STAMP')).toThrow(
        'Machine "clock": context.at is an instance of Date; the gate stores context as JSON data (plain objects, arrays, strings, finite numbers, booleans, null), so assign JSON data only.',
      );
      expect(() => engineFor({ id: 'bad', context: { n: [1, NaN] }, initial: 'a', states: { a: {} } })).toThrow(
        'Machine "bad": context.n[1] is NaN;',
      );
    });

    it('has no context for a machine that declares none and assigns nothing', () => {
      const engine = engineFor({ id: 'door', initial: 'closed', states: { closed: { on: { OPEN: 'open' } }, open: {} } });
      expect(engine.initial()).toStrictEqual({ state: 'closed' });
      expect(engine.transition({ state: 'closed', context: { kept: true } }, 'OPEN')).toStrictEqual({
        status: 'moved',
        next: { state: 'open', context: { kept: true } },
      });
    });
  });

  describe('on a parallel machine', () => {
    const engine = engineFor({
      id: 'order',
      initial: 'open',
      states: {
        open: {
          type: 'parallel',
          on: { CANCEL: 'cancelled' },
          onDone: 'closed',
          states: {
            shipping: {
              initial: 'packing',
              states: {
                packing: {
                  initial: 'boxing',
                  states: { boxing: { on: { BOX: 'boxed' } }, boxed: { on: { SHIP: '#order.open.shipping.sent' } } },
                },
                sent: { type: 'final' },
              },
            },
            billing: { initial: 'unpaid', states: { unpaid: { on: { PAY: 'paid' } }, paid: { type: 'final' } } },
            notes: { type: 'final' },
          },
        },
        cancelled: { type: 'final' },
        closed: { type: 'final' },
      },
    });
    const value = (shipping: unknown, billing: string) => JSON.stringify({ open: { shipping, billing, notes: {} } });
    const start = value({ packing: 'boxing' }, 'unpaid');

    it("tells the events a region's state accepts, the other regions' included", () => {
      expect(engine.eventsWhile('open.billing.unpaid')).toEqual(['CANCEL', 'BOX', 'PAY', 'SHIP']);
      expect(engine.eventsWhile('open.billing.paid')).toEqual(['CANCEL', 'BOX', 'SHIP']);
    });

    it('stores the state value as JSON, keys in document order', () => {
      expect(engine.initial()).toStrictEqual({ state: start });
      expect(start).toBe('{"open":{"shipping":{"packing":"boxing"},"billing":"unpaid","notes":{}}}');
    });

    it('lists region paths among the state paths', () => {
      expect(engine.statePaths()).toEqual([
        'open',
        'open.shipping',
        'open.shipping.packing',
        'open.shipping.packing.boxing',
        'open.shipping.packing.boxed',
        'open.shipping.sent',
        'open.billing',
        'open.billing.unpaid',
        'open.billing.paid',
        'open.notes',
        'cancelled',
        'closed',
      ]);
    });

    it('moves one region and keeps the others', () => {
      expect(engine.transition({ state: start }, 'PAY')).toStrictEqual({
        status: 'moved',
        next: { state: value({ packing: 'boxing' }, 'paid') },
      });
      expect(engine.transition({ state: value({ packing: 'boxing' }, 'paid') }, 'BOX')).toStrictEqual({
        status: 'moved',
        next: { state: value({ packing: 'boxed' }, 'paid') },
      });
    });

    it('leaves the parallel state when every region is done, or on its own transition', () => {
      expect(engine.transition({ state: value({ packing: 'boxed' }, 'paid') }, 'SHIP')).toStrictEqual({
        status: 'moved',
        next: { state: 'closed' },
      });
      expect(engine.transition({ state: value('sent', 'unpaid') }, 'CANCEL')).toStrictEqual({
        status: 'moved',
        next: { state: 'cancelled' },
      });
      expect(engine.transition({ state: start }, 'SHIP')).toStrictEqual({ status: 'ignored' });
    });

    it('matches any active state of any region, and their ancestors', () => {
      const state = value({ packing: 'boxed' }, 'paid');
      expect(engine.matches(state, 'open')).toBe(true);
      expect(engine.matches(state, 'open.shipping')).toBe(true);
      expect(engine.matches(state, 'open.shipping.packing')).toBe(true);
      expect(engine.matches(state, 'open.shipping.packing.boxed')).toBe(true);
      expect(engine.matches(state, 'open.billing.paid')).toBe(true);
      expect(engine.matches(state, 'open.notes')).toBe(true);
      expect(engine.matches(state, 'open.billing.unpaid')).toBe(false);
      expect(engine.matches(state, 'open.shipping.sent')).toBe(false);
      expect(engine.matches(state, 'open.notes.x')).toBe(false);
      expect(engine.matches(state, 'closed')).toBe(false);
    });

    it('knows complete configurations spelled as stored, nothing else', () => {
      expect(engine.knows(start)).toBe(true);
      expect(engine.knows(value('sent', 'paid'))).toBe(true);
      expect(engine.knows('closed')).toBe(true);
      for (const state of [
        '{"open":{"billing":"unpaid","shipping":{"packing":"boxing"},"notes":{}}}',
        '{"open":{"shipping":{"packing":"boxing"},"billing":"unpaid"}}',
        '{"open":{"shipping":"packing","billing":"unpaid","notes":{}}}',
        '{"open":{"shipping":{"packing":"boxing"},"billing":"owed","notes":{}}}',
        '{"open":{"shipping":{"packing":"boxing"},"billing":"unpaid","notes":{},"extra":{}}}',
        '{"open":{"shipping":{"packing":"boxing"},"billing":"unpaid","notes":"x"}}',
        '{"open":',
        '{"closed":{}}',
        'open',
        'open.billing.paid',
      ]) {
        expect([state, engine.knows(state), engine.matches(state, 'open'), engine.isFinal(state)]).toEqual([state, false, false, false]);
        expect(engine.transition({ state }, 'PAY')).toStrictEqual({ status: 'ignored' });
      }
    });

    it('lists every region combination that matches a binding', () => {
      expect(engine.valuesMatching(['open.shipping.sent'])).toEqual([value('sent', 'unpaid'), value('sent', 'paid')]);
      expect(engine.valuesMatching(['open'])).toHaveLength(6);
      expect(engine.valuesMatching(['closed', 'open.billing.paid', 'open.shipping.sent'])).toEqual([
        'closed',
        value({ packing: 'boxing' }, 'paid'),
        value({ packing: 'boxed' }, 'paid'),
        value('sent', 'paid'),
        value('sent', 'unpaid'),
      ]);
      for (const state of engine.valuesMatching(['open'])!) {
        expect(engine.knows(state)).toBe(true);
      }
    });

    it('gives up listing past 256 values', () => {
      const region = { initial: 's0', states: Object.fromEntries([0, 1, 2, 3, 4, 5, 6].map((n) => [`s${n}`, {}])) };
      const wide = engineFor(createMachine({ id: 'wide', type: 'parallel', states: { a: region, b: region, c: region } }));
      expect(wide.initial()).toStrictEqual({ state: '{"a":"s0","b":"s0","c":"s0"}' });
      expect(wide.valuesMatching(['a.s0'])).toHaveLength(49);
      expect(wide.valuesMatching(['a.s0', 'a.s1', 'a.s2', 'a.s3', 'a.s4'])).toHaveLength(245);
      expect(wide.valuesMatching(['a.s0', 'a.s1', 'a.s2', 'a.s3', 'a.s4', 'a.s5'])).toBeUndefined();
      expect(wide.valuesMatching(['a'])).toBeUndefined();
      expect(wide.valuesMatching(['b.s1.x', 'c.s9'])).toEqual([]);
      expect(wide.statePaths()).toHaveLength(24);
    });

    it('stores a one-region parallel state as a dotted path', () => {
      const single = engineFor({
        id: 'single',
        initial: 'p',
        states: { p: { type: 'parallel', states: { r: { initial: 'x', states: { x: { on: { GO: 'y' } }, y: {} } } } } },
      });
      expect(single.initial()).toStrictEqual({ state: 'p.r.x' });
      expect(single.transition({ state: 'p.r.x' }, 'GO')).toStrictEqual({ status: 'moved', next: { state: 'p.r.y' } });
      expect(single.valuesMatching(['p'])).toEqual(['p.r.x', 'p.r.y']);
      expect(single.knows('p.r')).toBe(false);
    });
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
    expect(engine.initial()).toStrictEqual({ state: 'idle' });
    expect(engine.transition({ state: 'idle' }, 'GO')).toStrictEqual({ status: 'moved', next: { state: 'done' } });
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
    expect(engine.transition({ state: 'running.step' }, 'FINISH')).toStrictEqual({ status: 'moved', next: { state: 'complete' } });
    expect(engine.isFinal('running.finished')).toBe(false);
    expect(engine.isFinal('complete')).toBe(true);
    expect(engine.transition({ state: 'complete' }, 'RESTART')).toStrictEqual({ status: 'ignored' });
  });

  describe('refuses at construction what it cannot run step by step', () => {
    const instead = {
      action:
        'Instead, run side effects in the tool handler; the gate stores context changes made with assign (and runs raise without a delay).',
    };
    const cannot = 'which nestjs-mcp-fsm cannot run: it runs machines step by step on stored snapshots, never as live actors.';

    it('delayed transitions', () => {
      expect(() => engineFor({ id: 'door', initial: 'open', states: { open: { after: { 1000: 'closed' } }, closed: {} } })).toThrow(
        `Machine "door": state "open" uses delayed transitions ("after"), ${cannot} Instead, fire the event from a tool (or from a scheduler that calls one).`,
      );
    });

    it('history states, whose memory the gate does not store', () => {
      expect(() =>
        engineFor({
          id: 'door',
          initial: 'open',
          states: { open: { initial: 'a', states: { a: { on: { NEXT: 'b' } }, b: {}, last: { type: 'history' } } }, closed: {} },
        }),
      ).toThrow(
        `Machine "door": state "open.last" uses a history state (type: 'history'), ${cannot} Instead, keep what to return to in the context (assign) and pick the target with guards: the gate stores each instance's state value and context, not XState's history value.`,
      );
    });

    it('invoked actors', () => {
      expect(() =>
        engineFor({ id: 'door', initial: 'open', states: { open: { initial: 'a', states: { a: { invoke: { src: 'check' } } } } } }),
      ).toThrow(
        `Machine "door": state "open.a" uses invoked actors ("invoke"), ${cannot} Instead, call the service in the tool handler, and bind the tool to the event that records its outcome.`,
      );
    });

    it('an inline function action', () => {
      expect(() =>
        engineFor({
          id: 'door',
          initial: 'closed',
          states: { closed: { on: { OPEN: { target: 'open', actions: () => undefined } } }, open: {} },
        }),
      ).toThrow(
        `Machine "door": state "closed" uses an inline function action in its transition on event "OPEN", ${cannot} ${instead.action}`,
      );
      function notify(): void {}
      expect(() => engineFor({ id: 'door', initial: 'closed', entry: notify, states: { closed: {} } })).toThrow(
        `Machine "door": the root node uses the inline action notify() in its entry actions, ${cannot} ${instead.action}`,
      );
    });

    it('log and sendTo', () => {
      expect(() => engineFor({ id: 'door', initial: 'closed', states: { closed: { exit: log('bye') } } })).toThrow(
        `Machine "door": state "closed" uses log() in its exit actions, ${cannot}`,
      );
      expect(() =>
        engineFor({ id: 'door', initial: 'closed', states: { closed: { entry: sendTo('audit', { type: 'OPENED' }) } } }),
      ).toThrow(`Machine "door": state "closed" uses sendTo() in its entry actions, ${cannot}`);
      expect(() =>
        engineFor({ id: 'door', initial: 'closed', states: { closed: { always: { actions: xstate.sendParent({ type: 'X' }) } } } }),
      ).toThrow(`Machine "door": state "closed" uses sendParent() in an eventless transition ("always"), ${cannot}`);
    });

    it('a custom action from setup, named by a string or { type }', () => {
      const custom = setup({ actions: { notify: () => undefined, track: () => undefined } });
      expect(() =>
        engineFor(custom.createMachine({ id: 'door', initial: 'closed', states: { closed: { on: { OPEN: { actions: 'notify' } } } } })),
      ).toThrow(
        `Machine "door": state "closed" uses the custom action "notify" in its transition on event "OPEN", ${cannot} ${instead.action}`,
      );
      expect(() =>
        engineFor(custom.createMachine({ id: 'door', initial: 'closed', states: { closed: { entry: { type: 'track', params: {} } } } })),
      ).toThrow('Machine "door": state "closed" uses the custom action "track" in its entry actions');
    });

    it('a setup action that is a built-in other than assign and raise', () => {
      const machine = setup({ actions: { audit: log('audit') } }).createMachine({
        id: 'door',
        initial: 'closed',
        states: { closed: { entry: 'audit' } },
      });
      expect(() => engineFor(machine)).toThrow('Machine "door": state "closed" uses the action "audit" (log()) in its entry actions');
    });

    it('an action without an implementation', () => {
      expect(() => engineFor({ id: 'door', initial: 'closed', states: { closed: { entry: 'notify' } } })).toThrow(
        'Machine "door": state "closed" uses the action "notify" (which has no implementation) in its entry actions',
      );
    });

    it('a delayed raise, enqueueActions, and actions in onDone or initial transitions', () => {
      expect(() =>
        engineFor({ id: 'door', initial: 'closed', states: { closed: { entry: raise({ type: 'X' }, { delay: 10 }) } } }),
      ).toThrow(
        `Machine "door": state "closed" uses a delayed raise() in its entry actions, ${cannot} Instead, raise the event without a delay, or fire it from a tool.`,
      );
      expect(() => engineFor({ id: 'door', initial: 'closed', states: { closed: { entry: enqueueActions(() => undefined) } } })).toThrow(
        'Machine "door": state "closed" uses enqueueActions() in its entry actions',
      );
      expect(() =>
        engineFor({
          id: 'job',
          initial: 'run',
          states: { run: { initial: 'end', states: { end: { type: 'final' } }, onDone: { target: 'done', actions: log() } }, done: {} },
        }),
      ).toThrow('Machine "job": state "run" uses log() in its done transition ("onDone")');
      expect(() => engineFor(createMachine({ id: 'job', initial: { target: 'a', actions: log() } as never, states: { a: {} } }))).toThrow(
        'Machine "job": the root node uses log() in its initial transition',
      );
    });

    it('accepts assign and immediate raise, inline or from setup', () => {
      const machine = setup({ actions: { count: assign({ n: 1 }), again: raise({ type: 'AGAIN' }) } }).createMachine({
        id: 'ok',
        context: { n: 0 },
        initial: 'a',
        entry: ['count', assign({ n: 2 })],
        states: { a: { on: { GO: { actions: ['again', raise({ type: 'NOOP' })] } } } },
      });
      expect(engineFor(machine).initial()).toStrictEqual({ state: 'a', context: { n: 2 } });
    });
  });

  it('refuses a state name with a dot or, at the top level, a "{", and a machine without states', () => {
    expect(() => engineFor({ id: 'x', initial: 'a', states: { a: { initial: 'b.c', states: { 'b.c': {} } } } })).toThrow(
      'Machine "x": state name "b.c" contains "."',
    );
    expect(() => engineFor({ id: 'x', initial: '{a', states: { '{a': {} } })).toThrow(
      'Machine "x": state name "{a" starts with "{"; the state values of parallel states are stored as JSON objects, so rename the state.',
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
