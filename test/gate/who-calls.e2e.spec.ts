import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { and, assign, setup } from 'xstate';
import { z } from 'zod';
import {
  BindState,
  defineMachine,
  McpContext,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  type McpMachineEvent,
  type McpToolContext,
} from '../../lib/index.js';
import { createMcpTestClient, type McpTestCaller } from '../../lib/testing.js';

/**
 * A refund that someone other than its requester, holding the `finance` role, approves: the
 * guards read `event.principal` (the verified caller), never the arguments. Who may see a refund
 * at all is a function: its requester, and anyone with the `finance` role.
 */
const refundMachine = defineMachine(
  setup({
    types: {
      context: {} as { requestedBy?: string; approvedBy?: string },
      events: {} as McpMachineEvent<'REQUEST' | 'APPROVE' | 'HOLD', { refundId?: string; principal?: unknown }>,
    },
    guards: {
      isFinance: ({ event }) => event.principal?.roles.includes('finance') ?? false,
      notTheRequester: ({ context, event }) => event.principal !== undefined && event.principal.id !== context.requestedBy,
    },
    actions: {
      recordRequester: assign({ requestedBy: ({ event }) => event.principal?.id }),
      recordApprover: assign({ approvedBy: ({ event }) => `${event.principal?.id} of ${String(event.principal?.claims.org)}` }),
    },
  }).createMachine({
    id: 'refund',
    initial: 'draft',
    context: {},
    states: {
      draft: { on: { REQUEST: { target: 'pending', actions: 'recordRequester' } } },
      pending: {
        on: {
          APPROVE: { target: 'approved', guard: and(['isFinance', 'notTheRequester']), actions: 'recordApprover' },
          HOLD: { target: 'pending' },
        },
      },
      approved: { type: 'final' },
    },
  }),
  {
    stateHandleKey: 'refundId',
    principalClaims: ['org'],
    access: (principal, instance) => principal !== undefined && (principal.id === instance.owner || principal.roles.includes('finance')),
    guardReasons: {
      'and(isFinance, notTheRequester)': ({ context, event }) =>
        event.principal?.id === context.requestedBy
          ? 'the requester of a refund can never approve it'
          : 'an approver needs the finance role',
    },
  },
);

const handleInput = z.object({ refundId: z.string(), principal: z.unknown().optional() });

@Injectable()
@McpWorkflow(refundMachine)
class RefundTools {
  @McpTool({ name: 'refund.request', description: 'Ask for a refund' })
  @McpStartWorkflow(refundMachine, 'REQUEST')
  request() {
    return { requested: true };
  }

  @McpTool({ name: 'refund.approve', description: 'Approve a refund', inputSchema: handleInput })
  @BindState('pending', 'APPROVE')
  approve() {
    return { approved: true };
  }

  /** Holds the refund's lease until the test lets go. */
  @McpTool({ name: 'refund.hold', description: 'Hold a refund a moment', inputSchema: handleInput })
  @BindState('pending', 'HOLD')
  async hold() {
    held.resolve();
    await release.promise;
    return { held: true };
  }

  @McpTool({ name: 'refund.status', description: 'Show a refund', inputSchema: handleInput })
  status(@McpContext() ctx: McpToolContext) {
    return { state: ctx.state, context: ctx.workflowContext };
  }
}

/** A promise and the function that settles it. */
const signal = () => {
  let resolve!: () => void;
  const promise = new Promise<void>((settle) => (resolve = settle));
  return { promise, resolve };
};
let held = signal();
let release = signal();

const refusalOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined;
const textOf = (result: CallToolResult) => (result.content as { type: string; text: string }[]).map((part) => part.text).join('\n');

describe('guards see who calls; an access function decides who may see an instance', () => {
  let app: INestApplication;
  const clients: Client[] = [];

  const as = async (auth?: McpTestCaller) => {
    const client = await createMcpTestClient(app, auth ? { auth } : {});
    clients.push(client);
    return {
      call: async (name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult,
    };
  };
  const alice: McpTestCaller = { clientId: 'alice', scopes: [], extra: { roles: ['finance'], claims: { org: 'acme', email: 'a@x' } } };
  const bob: McpTestCaller = { clientId: 'bob', scopes: [], extra: { roles: ['finance'], claims: { org: 'acme' } } };
  const carol: McpTestCaller = { clientId: 'carol', scopes: [], extra: { roles: [], claims: { org: 'acme' } } };

  beforeEach(async () => {
    @Module({ imports: [McpModule.forRoot({ name: 'refunds', version: '1.0.0', machines: [refundMachine] })], providers: [RefundTools] })
    class AppModule {}
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await app.close();
  });

  const requestAs = async (caller: McpTestCaller) => {
    const started = await (await as(caller)).call('refund.request');
    expect(started.isError).toBeFalsy();
    return (started.structuredContent as { refundId: string }).refundId;
  };

  it('refuses the requester’s own approval with GUARD_REJECTED naming the guard and its reason, even when the arguments claim another principal', async () => {
    const refundId = await requestAs(alice);
    const self = await (await as(alice)).call('refund.approve', { refundId, principal: { id: 'bob', roles: ['finance'] } });
    expect(refusalOf(self)).toMatchObject({ code: 'GUARD_REJECTED' });
    expect(textOf(self)).toContain(
      'its guard "and(isFinance, notTheRequester)" does not allow event "APPROVE" (the requester of a refund can never approve it)',
    );
    const approved = await (await as(bob)).call('refund.approve', { refundId });
    expect(approved.isError).toBeFalsy();
    const read = await (await as(alice)).call('refund.status', { refundId });
    expect(read.structuredContent).toMatchObject({ state: 'approved', context: { requestedBy: 'alice', approvedBy: 'bob of acme' } });
  });

  it('answers UNKNOWN_HANDLE where the access function says no (on reads and transitions), and lets in whom it names', async () => {
    const refundId = await requestAs(carol);
    expect((await (await as(carol)).call('refund.status', { refundId })).isError).toBeFalsy();
    const stranger = await as({ clientId: 'dave', scopes: [], extra: { claims: { org: 'acme' } } });
    expect(refusalOf(await stranger.call('refund.status', { refundId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect(refusalOf(await stranger.call('refund.approve', { refundId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    const anonymous = await as();
    expect(refusalOf(await anonymous.call('refund.status', { refundId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    // Carol may see her refund, never approve it; Bob (finance) may.
    const own = await (await as(carol)).call('refund.approve', { refundId });
    expect(textOf(own)).toContain('(the requester of a refund can never approve it)');
    expect((await (await as(bob)).call('refund.approve', { refundId })).isError).toBeFalsy();
  });

  it('tells a stranger UNKNOWN_HANDLE, not BUSY, while another call holds the instance', async () => {
    held = signal();
    release = signal();
    const refundId = await requestAs(carol);
    const holding = (await as(carol)).call('refund.hold', { refundId });
    // Settled below; when an expectation fails first, closing the client must not crash the run.
    holding.catch(() => undefined);
    try {
      await held.promise;
      const stranger = await as({ clientId: 'dave', scopes: [], extra: {} });
      expect(refusalOf(await stranger.call('refund.approve', { refundId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
      expect(refusalOf(await (await as(bob)).call('refund.approve', { refundId }))).toMatchObject({ code: 'BUSY' });
    } finally {
      release.resolve();
    }
    expect((await holding).isError).toBeFalsy();
  });
});
