import { defineMachine } from '../machines/define-machine.js';
import { BindState, McpBindState } from './bind-state.decorator.js';
import { McpStartWorkflow, StartWorkflow } from './start-workflow.decorator.js';

/** Calls as plain JavaScript (or code cast past the types) makes them: the compiler never saw these. */
const untyped = <T extends (...args: never[]) => unknown>(decorator: T) => decorator as unknown as (...args: unknown[]) => MethodDecorator;

const doorMachine = defineMachine({ id: 'door', initial: 'closed', states: { closed: { on: { OPEN: 'open' } }, open: {} } });

describe('the typed decorators called without the machine first', () => {
  it('@McpBindState given a state names the short form to use', () => {
    expect(() => untyped(McpBindState)('closed', 'OPEN')).toThrow(
      `@McpBindState takes the machine (what defineMachine returned) first, not "closed"; for the class's @McpWorkflow machine, or a machine id, use @BindState("closed", ...).`,
    );
  });

  it('@McpStartWorkflow given no machine, or its id, names the short form to use', () => {
    expect(() => untyped(McpStartWorkflow)()).toThrow(
      '@McpStartWorkflow takes the machine (what defineMachine returned) first, not undefined;',
    );
    expect(() => untyped(McpStartWorkflow)('door', 'OPEN')).toThrow('use @StartWorkflow(machineId?, event?).');
  });

  it('the typed and the short forms of the same binding agree on what they store, but for the decorator named', () => {
    const read = (decorator: MethodDecorator) => {
      const target = { method() {} };
      decorator(target, 'method', Object.getOwnPropertyDescriptor(target, 'method')!);
      return Reflect.getMetadata('nestjs-mcp-fsm:bind-state', target.method) as Record<string, unknown>;
    };
    expect(read(McpBindState(doorMachine, 'closed', 'OPEN'))).toEqual({
      ...read(BindState('closed', 'OPEN', { machine: doorMachine })),
      decorator: '@McpBindState',
    });
    expect(read(BindState(['closed'], 'OPEN'))).toEqual({ states: ['closed'], transition: 'OPEN', decorator: '@BindState' });
    expect(() => StartWorkflow()).not.toThrow();
  });
});
