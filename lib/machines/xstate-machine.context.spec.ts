import { assign, createMachine, raise, setup } from 'xstate';
import type { MachineState } from './machine-engine.interface.js';
import { engineFor } from './xstate-engine.fixture.js';

describe('XStateMachineEngine', () => {
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
});
