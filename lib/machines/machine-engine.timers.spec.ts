import { setup } from 'xstate';
import { defineMachine } from './define-machine.js';
import type { McpMachineConfig } from './machine.interface.js';
import { TableMachineEngine } from './table-machine.engine.js';
import { engineFor } from './xstate-engine.fixture.js';

/** The sample's payment, cut down: `authorized` lapses after a delay unless captured first. */
const payment: McpMachineConfig = {
  id: 'pay',
  initial: 'draft',
  states: {
    draft: { on: { AUTHORIZE: 'authorized' } },
    authorized: {
      after: { 5000: 'voided' },
      on: { CAPTURE: 'captured', PING: 'authorized', RENEW: { target: 'authorized', reenter: true } },
    },
    captured: { type: 'final' },
    voided: { type: 'final' },
  },
};
const TIMER = { id: 'xstate.after.5000.pay.authorized', event: 'xstate.after.5000.pay.authorized', delayMs: 5000 };

describe.each([
  ['XState', () => engineFor(payment)],
  ['table', () => new TableMachineEngine(defineMachine(payment))],
])('timers of `after` transitions on the %s engine', (_name, make) => {
  const engine = make();

  it('schedules the timers of the state a transition enters', () => {
    expect(engine.transition({ state: 'draft' }, 'AUTHORIZE')).toStrictEqual({
      status: 'moved',
      next: { state: 'authorized' },
      timers: { schedule: [TIMER], cancel: [] },
    });
  });

  it('cancels them when a transition leaves the state', () => {
    expect(engine.transition({ state: 'authorized' }, 'CAPTURE')).toStrictEqual({
      status: 'moved',
      next: { state: 'captured' },
      timers: { schedule: [], cancel: [TIMER.id] },
    });
  });

  it('keeps them on a transition to the same state, restarts them when it re-enters', () => {
    expect(engine.transition({ state: 'authorized' }, 'PING')).toStrictEqual({ status: 'moved', next: { state: 'authorized' } });
    expect(engine.transition({ state: 'authorized' }, 'RENEW')).toStrictEqual({
      status: 'moved',
      next: { state: 'authorized' },
      timers: { schedule: [TIMER], cancel: [TIMER.id] },
    });
  });

  it('moves when the timer fires in the state, and ignores it in any other', () => {
    expect(engine.transition({ state: 'authorized' }, TIMER.event)).toStrictEqual({
      status: 'moved',
      next: { state: 'voided' },
      timers: { schedule: [], cancel: [TIMER.id] },
    });
    expect(engine.transition({ state: 'captured' }, TIMER.event)).toStrictEqual({ status: 'ignored' });
    expect(engine.transition({ state: 'draft' }, TIMER.event)).toStrictEqual({ status: 'ignored' });
  });

  it('lists its deadlines, which no tool can bind to', () => {
    expect(engine.deadlines()).toStrictEqual([{ state: 'authorized', event: TIMER.event, delay: '5000' }]);
    expect(engine.eventNames()).not.toContain(TIMER.event);
    expect(engine.eventsWhile('authorized')).not.toContain(TIMER.event);
  });

  it('schedules nothing for an initial state without `after`', () => {
    expect(engine.initialTimers()).toStrictEqual({ schedule: [], cancel: [] });
  });
});

describe('timers on the XState engine only', () => {
  it('resolves a named delay from the context, and schedules the initial state’s timers', () => {
    const machine = setup({
      types: { context: {} as { ttl: number }, input: {} as { ttl?: number } },
      delays: { ttl: ({ context }) => context.ttl },
    }).createMachine({
      id: 'hold',
      initial: 'held',
      context: ({ input }) => ({ ttl: input?.ttl ?? 1000 }),
      states: { held: { after: { ttl: 'released' }, on: { RELEASE: 'released' } }, released: {} },
    });
    const engine = engineFor(machine);
    const id = 'xstate.after.ttl.hold.held';
    expect(engine.initialTimers()).toStrictEqual({ schedule: [{ id, event: id, delayMs: 1000 }], cancel: [] });
    expect(engine.initialTimers({ ttl: 250 })).toStrictEqual({ schedule: [{ id, event: id, delayMs: 250 }], cancel: [] });
    expect(engine.deadlines()).toStrictEqual([{ state: 'held', event: id, delay: 'ttl' }]);
    expect(engine.transition({ state: 'held', context: { ttl: 5 } }, id)).toMatchObject({ next: { state: 'released' } });
  });

  it('cancels the timers of a nested state it leaves, and schedules those of a parallel region it enters', () => {
    const engine = engineFor({
      id: 'n',
      initial: 'a',
      states: {
        a: { initial: 'x', states: { x: { after: { 100: 'y' } }, y: {} }, on: { GO: 'b' } },
        b: { type: 'parallel', states: { l: { after: { 200: '#n.a' } }, r: {} } },
      },
    });
    expect(engine.initialTimers().schedule.map((timer) => timer.id)).toStrictEqual(['xstate.after.100.n.a.x']);
    expect(engine.transition({ state: 'a.x' }, 'GO')).toMatchObject({
      timers: { schedule: [{ id: 'xstate.after.200.n.b.l', delayMs: 200 }], cancel: ['xstate.after.100.n.a.x'] },
    });
  });
});

describe('timers on the table engine only', () => {
  it('refuses a named delay, which needs XState', () => {
    expect(() => new TableMachineEngine(defineMachine({ id: 't', initial: 'a', states: { a: { after: { ttl: 'b' } }, b: {} } }))).toThrow(
      'Machine "t": state "a" uses the delay "ttl" in "after" (the table takes milliseconds; a named delay needs setup({ delays })); install xstate (an optional peer) to run it.',
    );
  });

  it('checks the target of an `after` transition', () => {
    expect(() => new TableMachineEngine(defineMachine({ id: 't', initial: 'a', states: { a: { after: { 10: 'nowhere' } } } }))).toThrow(
      'Machine "t": state "a" sends event "xstate.after.10.t.a" to unknown state "nowhere".',
    );
  });
});
