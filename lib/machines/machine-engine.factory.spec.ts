import * as xstate from 'xstate';
import { createMachine } from 'xstate';
import { invoiceMachine } from './billing-machines.fixture.js';
import { defineMachine } from './define-machine.js';
import { createMachineEngine } from './machine-engine.factory.js';
import { loadXState, type XStateModule } from './xstate.loader.js';

const nestedMachine = defineMachine({
  id: 'review',
  initial: 'open',
  states: { open: { initial: 'legal', states: { legal: {} } } },
});

const guardedMachine = defineMachine({
  id: 'invoice',
  initial: 'review',
  states: { review: { on: { APPROVE: { target: 'approved', guard: 'small' } } }, approved: {} },
});

const failWith = (code: string, message: string) => async (): Promise<XStateModule> => {
  throw Object.assign(new Error(message), { code });
};

describe('loadXState', () => {
  it('imports the installed xstate', async () => {
    const loaded = await loadXState();
    expect(typeof loaded?.createMachine).toBe('function');
    expect(typeof loaded?.transition).toBe('function');
  });

  it('resolves undefined when xstate is not installed (ESM and CJS wording)', async () => {
    await expect(
      loadXState(failWith('ERR_MODULE_NOT_FOUND', "Cannot find package 'xstate' imported from /app/dist/fsm/xstate.loader.js")),
    ).resolves.toBeUndefined();
    await expect(loadXState(failWith('MODULE_NOT_FOUND', "Cannot find module 'xstate'"))).resolves.toBeUndefined();
  });

  it('rethrows a missing file inside an installed xstate', async () => {
    const broken = failWith(
      'ERR_MODULE_NOT_FOUND',
      "Cannot find module '/app/node_modules/xstate/dist/raise.esm.js' imported from /app/node_modules/xstate/dist/xstate.esm.js",
    );
    await expect(loadXState(broken)).rejects.toThrow('raise.esm.js');
  });

  it('rethrows any other failure', async () => {
    await expect(loadXState(failWith('ERR_REQUIRE_ESM', "Cannot load 'xstate'"))).rejects.toThrow("Cannot load 'xstate'");
  });
});

describe('createMachineEngine', () => {
  it('uses XState in auto mode when it is installed', () => {
    const engine = createMachineEngine(nestedMachine, xstate);
    expect(engine.kind).toBe('xstate');
    expect(engine.initial()).toStrictEqual({ state: 'open.legal' });
  });

  it('uses the table when asked to, even with XState installed', () => {
    expect(createMachineEngine(invoiceMachine, xstate, 'table').kind).toBe('table');
    expect(() => createMachineEngine(nestedMachine, xstate, 'table')).toThrow('install xstate');
  });

  it('refuses engine "xstate" without xstate', () => {
    expect(() => createMachineEngine(invoiceMachine, undefined, 'xstate')).toThrow(
      'Machine "invoice": engine "xstate" was chosen, but xstate is not installed; install xstate (an optional peer) or choose engine "table" or "auto".',
    );
  });

  it('refuses a machine made with XState when xstate cannot be loaded', () => {
    const machine = defineMachine(createMachine({ id: 'door', initial: 'closed', states: { closed: {} } }));
    expect(() => createMachineEngine(machine, undefined)).toThrow(
      'Machine "door" was defined with an XState machine object, but nestjs-mcp-fsm could not load xstate; install xstate (an optional peer) where nestjs-mcp-fsm can import it.',
    );
  });

  describe('when xstate is absent', () => {
    const absent = failWith('ERR_MODULE_NOT_FOUND', "Cannot find package 'xstate' imported from /app/dist/fsm/xstate.loader.js");

    it('runs a flat machine on the table', async () => {
      const engine = createMachineEngine(invoiceMachine, await loadXState(absent));
      expect(engine.kind).toBe('table');
      expect(engine.transition({ state: 'draft' }, 'SUBMIT')).toStrictEqual({ status: 'moved', next: { state: 'review' } });
      expect(engine.transition({ state: 'draft' }, 'APPROVE')).toStrictEqual({ status: 'ignored' });
    });

    it('fails on nested or guarded machines with a message naming xstate', async () => {
      const loaded = await loadXState(absent);
      expect(() => createMachineEngine(nestedMachine, loaded)).toThrow(
        'Machine "review": state "open" uses nested states; install xstate (an optional peer) to run it.',
      );
      expect(() => createMachineEngine(guardedMachine, loaded)).toThrow(
        'Machine "invoice": state "review" uses a guard on event "APPROVE"; install xstate (an optional peer) to run it.',
      );
    });
  });
});
