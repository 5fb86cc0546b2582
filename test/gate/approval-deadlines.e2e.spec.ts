import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  defineMachine,
  InMemoryFsmStateStore,
  McpApproval,
  McpBindState,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
} from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { eventually } from '../utils/http-client.js';

/** A grant lapses 400 ms after it opens, unless it is used first; using it needs a second person. */
const grantMachine = defineMachine(
  {
    id: 'grant',
    initial: 'new',
    states: {
      new: { on: { OPEN: 'open' } },
      open: { after: { 400: 'lapsed' }, on: { USE: 'used' } },
      use_pending: {},
      used: { type: 'final' },
      lapsed: { type: 'final' },
    },
  },
  { stateHandleKey: 'grantId', access: { team: 'org' } },
);

@McpWorkflow(grantMachine)
@Injectable()
class GrantTools {
  @McpTool({ name: 'grant.open', description: 'Open a grant that lapses by itself.', inputSchema: z.object({}) })
  @McpStartWorkflow(grantMachine, 'OPEN')
  open() {
    return { opened: true };
  }

  @McpTool({ name: 'grant.use', description: 'Use an open grant (a second person approves).', inputSchema: z.object({}) })
  @McpBindState(grantMachine, 'open', 'USE')
  @McpApproval(grantMachine, {
    waitIn: 'use_pending',
    approvers: { scopes: ['grants:approve'] },
    approve: { name: 'grant.approve_use' },
    reject: { name: 'grant.reject_use' },
  })
  use() {
    return { used: true };
  }
}

describe('a deadline of the state a request waits from waits with it: it fires after the request goes back, never after it is approved', () => {
  let app: INestApplication;
  let store: InMemoryFsmStateStore;
  const clients: Client[] = [];

  beforeEach(async () => {
    store = new InMemoryFsmStateStore({ history: true });
    @Module({})
    class GrantAppModule {}
    const moduleRef = await Test.createTestingModule({
      imports: [
        {
          module: GrantAppModule,
          imports: [
            McpModule.forRoot({
              name: 'grants',
              version: '1.0.0',
              machines: [grantMachine],
              store,
              gate: { leaseMs: 1_000, deadlines: { pollMs: 50 } },
              transports: { http: false },
            }),
          ],
          providers: [GrantTools],
        },
      ],
    }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await app.close();
  });

  const connect = async (clientId: string, scopes: string[] = []) => {
    const client = await createMcpTestClient(app, { auth: { clientId, scopes, extra: { claims: { org: 'acme' } } } });
    clients.push(client);
    return async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  };
  const stateOf = async (grantId: string) => (await store.load(`grant:${grantId}`))?.state;
  const parked = async () => {
    const alice = await connect('alice');
    const carol = await connect('carol', ['grants:approve']);
    const { grantId } = (await alice('grant.open')).structuredContent as { grantId: string };
    const { requestId } = (await alice('grant.use', { grantId })).structuredContent as { requestId: string };
    expect(await stateOf(grantId)).toBe('use_pending');
    // Past the deadline of `open`, with the scheduler polling every 50 ms: the request still waits.
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await stateOf(grantId)).toBe('use_pending');
    return { alice, carol, grantId, requestId };
  };

  it('lapses once the requester withdraws: the deadline was due while the request waited, and fires after', async () => {
    const { alice, grantId, requestId } = await parked();
    expect((await alice('grant.reject_use', { grantId, requestId })).structuredContent).toMatchObject({
      status: 'withdrawn',
      state: 'open',
    });
    await eventually(async () => (await stateOf(grantId)) === 'lapsed', 10_000);
    expect((await store.history(`grant:${grantId}`)).map(({ to }) => to)).toEqual(['open', 'use_pending', 'open', 'lapsed']);
  });

  it('lapses once an approver rejects', async () => {
    const { carol, grantId, requestId } = await parked();
    expect((await carol('grant.reject_use', { grantId, requestId })).structuredContent).toMatchObject({
      status: 'rejected',
      state: 'open',
    });
    await eventually(async () => (await stateOf(grantId)) === 'lapsed', 10_000);
  });

  it('never lapses once approved: the approved transition leaves `open` and cancels its deadline', async () => {
    const { carol, grantId, requestId } = await parked();
    expect((await carol('grant.approve_use', { grantId, requestId })).isError).toBeFalsy();
    expect(await stateOf(grantId)).toBe('used');
    expect(await store.pendingTimers(`grant:${grantId}`)).toEqual([]);
    expect((await store.history(`grant:${grantId}`)).map(({ to }) => to)).toEqual(['open', 'use_pending', 'used']);
  });
});
