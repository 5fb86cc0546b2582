import { invoiceMachine } from './billing-machines.fixture.js';
import { defineMachine } from './define-machine.js';
import type { MachineEngine } from './machine-engine.interface.js';
import { TableMachineEngine } from './table-machine.engine.js';
import { engineFor } from './xstate-engine.fixture.js';

describe.each<[string, () => MachineEngine]>([
  ['table', () => new TableMachineEngine(defineMachine(invoiceMachine.config))],
  ['xstate', () => engineFor(invoiceMachine.config)],
])('the %s engine on the invoice machine', (kind, build) => {
  const engine = build();

  it('describes the machine', () => {
    expect(engine.kind).toBe(kind);
    expect(engine.machineId).toBe('invoice');
    expect(engine.initial()).toStrictEqual({ state: 'draft' });
    expect(engine.statePaths()).toEqual(['draft', 'review', 'approved', 'discharged']);
    expect(engine.eventNames()).toEqual(['SUBMIT', 'APPROVE', 'REJECT', 'DISCHARGE']);
  });

  it('knows the final state and ignores every event there', () => {
    expect(engine.isFinal('discharged')).toBe(true);
    expect(engine.isFinal('approved')).toBe(false);
    expect(engine.transition({ state: 'discharged' }, 'SUBMIT')).toStrictEqual({ status: 'ignored' });
  });
});
