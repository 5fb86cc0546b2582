import { invoiceMachine } from './billing-machines.fixture.js';
import type { MachineState } from './machine-engine.interface.js';
import { engineFor } from './xstate-engine.fixture.js';

// The design's running example.
const invoiceConfig = invoiceMachine.config;

describe('XStateMachineEngine', () => {
  describe('on the invoice machine', () => {
    const engine = engineFor(invoiceConfig);

    it('follows the transitions and ignores what a state does not accept', () => {
      expect(engine.transition({ state: 'draft' }, 'SUBMIT')).toStrictEqual({ status: 'moved', next: { state: 'review' } });
      expect(engine.transition({ state: 'review' }, 'REJECT')).toStrictEqual({ status: 'moved', next: { state: 'draft' } });
      expect(engine.transition({ state: 'draft' }, 'APPROVE')).toStrictEqual({ status: 'ignored' });
      expect(engine.transition({ state: 'draft' }, 'toString')).toStrictEqual({ status: 'ignored' });
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
});
