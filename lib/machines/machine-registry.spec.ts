import { defineMachine } from './define-machine.js';
import { McpMachineRegistry } from './machine-registry.js';

const door = defineMachine({ id: 'door', initial: 'closed', states: { closed: { on: { OPEN: 'open' } }, open: {} } });
const review = defineMachine(
  { id: 'review', initial: 'open', states: { open: { initial: 'legal', states: { legal: {} } } } },
  { stateHandleKey: 'reviewId' },
);

describe('McpMachineRegistry', () => {
  it('creates an engine per machine, XState in auto mode when it is installed', async () => {
    const registry = await McpMachineRegistry.build([door, review], 'auto');
    expect(registry.ids()).toEqual(['door', 'review']);
    expect(registry.has('door')).toBe(true);
    expect(registry.has('window')).toBe(false);
    expect(registry.has('toString')).toBe(false);
    expect(registry.machine('review')).toBe(review);
    expect(registry.engine('door').kind).toBe('xstate');
    expect(registry.engine('review').initial()).toStrictEqual({ state: 'open.legal' });
  });

  it('uses the table when asked to, and fails on what the table cannot run', async () => {
    const registry = await McpMachineRegistry.build([door], 'table');
    expect(registry.engine('door').kind).toBe('table');
    await expect(McpMachineRegistry.build([door, review], 'table')).rejects.toThrow(
      'Machine "review": state "open" uses nested states; install xstate (an optional peer) to run it.',
    );
  });

  it('builds an empty registry', async () => {
    expect((await McpMachineRegistry.build([], 'xstate')).ids()).toEqual([]);
  });

  it('refuses two machines with one id', async () => {
    await expect(McpMachineRegistry.build([door, review, door], 'auto')).rejects.toThrow(
      'McpModule: two machines have the id "door"; machine ids must be unique.',
    );
  });

  it('refuses a machine id with ":", the separator of store keys', async () => {
    const machine = defineMachine({ id: 'billing:v2', initial: 'a', states: { a: {} } });
    await expect(McpMachineRegistry.build([machine], 'auto')).rejects.toThrow(
      'McpModule: machine id "billing:v2" contains ":"; store keys are "<machine>:<handle>", so rename the machine.',
    );
  });

  it('fails at build on a machine the engine refuses', async () => {
    const machine = defineMachine({ id: 'door', initial: 'open', states: { open: { invoke: { src: 'check' } }, closed: {} } });
    await expect(McpMachineRegistry.build([machine], 'auto')).rejects.toThrow(
      'Machine "door": state "open" uses invoked actors ("invoke")',
    );
  });
});
