import * as xstate from 'xstate';
import { and, assign, setup } from 'xstate';
import { defineMachine } from './define-machine.js';
import type { McpMachineEvent, McpPrincipal } from './machine-access.js';
import type { MachineEngine } from './machine-engine.interface.js';
import { TableMachineEngine } from './table-machine.engine.js';
import { XStateMachineEngine } from './xstate-machine.engine.js';

const alice: McpPrincipal = { id: 'alice', scopes: ['payments:approve'], roles: ['approver'], claims: { org: 'acme' } };
const bob: McpPrincipal = { id: 'bob', scopes: [], roles: [], claims: { org: 'acme' } };

/** Four eyes in a guard: the approver must hold the role and must not be the requester, read from the principal, never the input. */
const approvals = setup({
  types: {
    context: {} as { requestedBy?: string; approvedBy?: string },
    events: {} as McpMachineEvent<'REQUEST' | 'APPROVE', { requestedBy?: string }>,
  },
  guards: {
    isApprover: ({ event }) => event.principal?.roles.includes('approver') ?? false,
    notTheRequester: ({ context, event }) => event.principal !== undefined && event.principal.id !== context.requestedBy,
  },
  actions: {
    recordRequester: assign({ requestedBy: ({ event }) => event.principal?.id ?? 'anonymous' }),
    recordApprover: assign({ approvedBy: ({ event }) => event.principal?.id }),
  },
}).createMachine({
  id: 'refund',
  initial: 'draft',
  context: {},
  states: {
    draft: { on: { REQUEST: { target: 'pending', actions: 'recordRequester' } } },
    pending: {
      on: {
        APPROVE: { target: 'approved', guard: and(['isApprover', 'notTheRequester']), actions: 'recordApprover' },
      },
    },
    approved: { type: 'final' },
  },
});

describe('guards and actions see who calls (event.principal)', () => {
  const engine = new XStateMachineEngine(
    defineMachine(approvals, {
      stateHandleKey: 'refundId',
      guardReasons: {
        'and(isApprover, notTheRequester)': ({ context, event }) =>
          event.principal?.id === context.requestedBy
            ? `${event.principal?.id} asked for this refund and cannot approve it`
            : 'an approver must approve',
      },
    }),
    xstate,
  );

  it('passes the principal to actions: the requester recorded is the caller, whatever the arguments say', () => {
    const step = engine.transition({ state: 'draft', context: {} }, 'REQUEST', { requestedBy: 'mallory' }, bob);
    expect(step).toStrictEqual({ status: 'moved', next: { state: 'pending', context: { requestedBy: 'bob' } } });
  });

  it('lets guards tell principals apart, and names the guard that said no with its reason', () => {
    const pending = { state: 'pending', context: { requestedBy: 'alice' } };
    expect(engine.transition(pending, 'APPROVE', {}, alice)).toStrictEqual({
      status: 'guarded',
      guards: ['and(isApprover, notTheRequester)'],
      reasons: ['alice asked for this refund and cannot approve it'],
    });
    expect(engine.transition(pending, 'APPROVE', {}, bob)).toStrictEqual({
      status: 'guarded',
      guards: ['and(isApprover, notTheRequester)'],
      reasons: ['an approver must approve'],
    });
    const requestedByBob = { state: 'pending', context: { requestedBy: 'bob' } };
    expect(engine.transition(requestedByBob, 'APPROVE', {}, alice)).toStrictEqual({
      status: 'moved',
      next: { state: 'approved', context: { requestedBy: 'bob', approvedBy: 'alice' } },
    });
  });

  it('sends no principal for an anonymous caller: a guard that needs one says no', () => {
    expect(engine.transition({ state: 'pending', context: { requestedBy: 'bob' } }, 'APPROVE', {})).toMatchObject({ status: 'guarded' });
    expect(engine.transition({ state: 'draft', context: {} }, 'REQUEST', {})).toStrictEqual({
      status: 'moved',
      next: { state: 'pending', context: { requestedBy: 'anonymous' } },
    });
  });

  it('gives a text reason as it is, and leaves out a reason that throws or answers nothing', () => {
    const gated = (reason: Parameters<typeof defineMachine>[1]) =>
      new XStateMachineEngine(
        defineMachine(
          setup({ guards: { open: () => false, shut: () => false } }).createMachine({
            id: 'door',
            initial: 'closed',
            states: {
              closed: {
                on: {
                  OPEN: [
                    { target: 'opened', guard: 'open' },
                    { target: 'opened', guard: 'shut' },
                  ],
                },
              },
              opened: {},
            },
          }),
          reason,
        ),
        xstate,
      );
    expect(gated({ guardReasons: { open: 'the door is locked' } }).transition({ state: 'closed' }, 'OPEN')).toStrictEqual({
      status: 'guarded',
      guards: ['open', 'shut'],
      reasons: ['the door is locked'],
    });
    const failing = gated({
      guardReasons: {
        open: () => {
          throw new Error('database password is hunter2');
        },
        shut: () => '',
      },
    });
    expect(failing.transition({ state: 'closed' }, 'OPEN', undefined, alice)).toStrictEqual({
      status: 'guarded',
      guards: ['open', 'shut'],
    });
  });

  it('runs a table machine the same with or without a principal (a table has no guards)', () => {
    const table: MachineEngine = new TableMachineEngine(
      defineMachine({ id: 'flat', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } }),
    );
    expect(table.transition({ state: 'a' }, 'GO', {}, alice)).toStrictEqual(table.transition({ state: 'a' }, 'GO'));
  });
});

describe('defineMachine access options', () => {
  const config = { id: 'payment', initial: 'a', states: { a: {} } };

  it('defaults to the owner rule, no claims and no reasons', () => {
    expect(defineMachine(config, { stateHandleKey: 'paymentId' })).toMatchObject({
      access: 'owner',
      principalClaims: [],
      guardReasons: {},
    });
  });

  it('adds the claim of a team rule to the claims guards see, once', () => {
    const machine = defineMachine(config, { access: { team: 'org' }, principalClaims: ['email', 'org'] });
    expect(machine.principalClaims).toEqual(['email', 'org']);
    expect(defineMachine(config, { access: { team: 'org' } }).principalClaims).toEqual(['org']);
  });

  it.each([[{ team: '' }], [{ team: 42 }], ['team'], [{}]])('refuses an access rule that is none: %p', (access) => {
    expect(() => defineMachine(config, { access: access as never })).toThrow(
      `defineMachine("payment"): access must be 'owner', { team: '<claim name>' } (a non-empty claim name) or a function (principal, instance) => boolean.`,
    );
  });
});
