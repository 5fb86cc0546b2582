import { createMachine } from 'xstate';
import { engineFor } from './xstate-engine.fixture.js';

describe('XStateMachineEngine', () => {
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
});
