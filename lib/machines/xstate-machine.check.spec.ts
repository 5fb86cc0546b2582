import * as xstate from 'xstate';
import { assign, createMachine, enqueueActions, log, raise, sendTo, setup } from 'xstate';
import { engineFor } from './xstate-engine.fixture.js';

describe('XStateMachineEngine', () => {
  describe('refuses at construction what it cannot run step by step', () => {
    const instead = {
      action:
        'Instead, run side effects in the tool handler; the gate stores context changes made with assign (and runs raise without a delay).',
    };
    const cannot = 'which nestjs-mcp-fsm cannot run: it runs machines step by step on stored snapshots, never as live actors.';

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
