import { setup } from 'xstate';
import { engineFor } from './xstate-engine.fixture.js';

describe('XStateMachineEngine', () => {
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
});
