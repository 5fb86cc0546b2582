import fc from 'fast-check';
import * as xstate from 'xstate';
import { invoiceMachine } from './billing-machines.fixture.js';
import { defineMachine } from './define-machine.js';
import type { McpMachineConfig, McpStateNodeConfig } from './machine.interface.js';
import { TableMachineEngine } from './table-machine.engine.js';
import { XStateMachineEngine } from './xstate-machine.engine.js';

const UNKNOWN_EVENT = 'NOT_IN_ANY_MACHINE';
const UNKNOWN_STATE = 'notInAnyMachine';

// The design's running example.
const invoiceConfig = invoiceMachine.config;

// Object.prototype member names catch lookups that read inherited properties.
const prototypeNames = fc.constantFrom('constructor', 'toString', 'valueOf', 'hasOwnProperty');
const stateName = fc.oneof(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,6}$/), prototypeNames);
const eventName = fc.oneof(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,6}$/), prototypeNames);

interface GeneratedCase {
  config: McpMachineConfig;
  events: string[];
  sequence: string[];
}

const flatMachine: fc.Arbitrary<GeneratedCase> = fc
  .record({
    names: fc.uniqueArray(stateName, { minLength: 1, maxLength: 6 }),
    events: fc.uniqueArray(eventName, { minLength: 1, maxLength: 5 }),
  })
  .chain(({ names, events }) => {
    const transition = fc.option(fc.record({ target: fc.constantFrom(...names), asObject: fc.boolean() }), { nil: undefined, freq: 2 });
    const state = fc.record({
      final: fc.nat(3).map((n) => n === 0),
      on: fc.tuple(...events.map(() => transition)),
    });
    return fc
      .record({
        initial: fc.constantFrom(...names),
        states: fc.tuple(...names.map(() => state)),
        // JSON data the machine never changes: both engines hand it back as it came.
        context: fc.option(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }), { nil: undefined }),
        sequence: fc.array(fc.constantFrom(...events, UNKNOWN_EVENT), { maxLength: 25 }),
      })
      .map(({ initial, states, context, sequence }): GeneratedCase => {
        const nodes = names.map((name, i): [string, McpStateNodeConfig] => {
          const on = events.flatMap((event, j) => {
            const t = states[i].on[j];
            return t ? [[event, t.asObject ? { target: t.target } : t.target] as const] : [];
          });
          return [name, { ...(states[i].final ? { type: 'final' as const } : {}), on: Object.fromEntries(on) }];
        });
        const config: McpMachineConfig = { id: 'generated', initial, states: Object.fromEntries(nodes) };
        return { config: context === undefined ? config : { ...config, context }, events, sequence };
      });
  });

function expectEnginesAgree({ config, events, sequence }: GeneratedCase): void {
  const machine = defineMachine(config);
  const table = new TableMachineEngine(machine);
  const real = new XStateMachineEngine(machine, xstate);

  expect(table.initial()).toStrictEqual(real.initial());
  expect(table.statePaths()).toEqual(real.statePaths());
  expect(table.eventNames()).toEqual(real.eventNames());

  const states = table.statePaths();
  const stored = [...states, UNKNOWN_STATE];
  for (const state of stored) {
    expect([state, table.knows(state), table.isFinal(state)]).toEqual([state, real.knows(state), real.isFinal(state)]);
    expect([state, table.eventsWhile(state)]).toEqual([state, real.eventsWhile(state)]);
    for (const binding of stored) {
      expect([state, binding, table.matches(state, binding)]).toEqual([state, binding, real.matches(state, binding)]);
    }
    for (const event of [...events, UNKNOWN_EVENT]) {
      const from = { state };
      expect([state, event, table.transition(from, event)]).toStrictEqual([state, event, real.transition(from, event)]);
    }
  }
  expect(table.valuesMatching(stored)).toEqual(real.valuesMatching(stored));
  expect(table.valuesMatching([...stored].reverse())).toEqual(real.valuesMatching([...stored].reverse()));

  let instance = table.initial();
  for (const event of sequence) {
    const step = table.transition(instance, event);
    expect([instance.state, event, step]).toStrictEqual([instance.state, event, real.transition(instance, event)]);
    expect(step.status).not.toBe('guarded');
    instance = step.status === 'moved' ? step.next : instance;
    expect(table.isFinal(instance.state)).toBe(real.isFinal(instance.state));
  }
}

describe('TableMachineEngine and XStateMachineEngine', () => {
  it('agree on the invoice machine', () => {
    expectEnginesAgree({
      config: invoiceConfig,
      events: ['SUBMIT', 'APPROVE', 'REJECT', 'DISCHARGE'],
      sequence: ['APPROVE', 'SUBMIT', 'REJECT', 'SUBMIT', 'APPROVE', 'SUBMIT', 'DISCHARGE', 'SUBMIT', 'DISCHARGE'],
    });
  });

  it('agree on every generated flat machine and event sequence', () => {
    fc.assert(fc.property(flatMachine, expectEnginesAgree), { numRuns: 300 });
  });
});
