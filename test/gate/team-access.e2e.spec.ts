import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  BindState,
  defineMachine,
  InMemoryFsmStateStore,
  McpArgs,
  McpContext,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  type McpToolContext,
} from '../../lib/index.js';
import { createMcpTestClient, type McpTestCaller } from '../../lib/testing.js';

/** A ticket any principal of its opener's `tenant` may close (a team rule on the `tenant` claim). */
const ticketMachine = defineMachine(
  { id: 'ticket', initial: 'open', states: { open: { on: { CLOSE: 'closed' } }, closed: { type: 'final' } } },
  { stateHandleKey: 'ticketId', access: { team: 'tenant' } },
);

const ticketInput = z.object({ ticketId: z.string() });
const peekInput = z.object({ ticketId: z.string(), other: z.string() });

@Injectable()
@McpWorkflow(ticketMachine)
class TicketTools {
  constructor(private readonly workflows: McpWorkflowService) {}

  @McpTool({ name: 'ticket.open', description: 'Open a ticket' })
  @McpStartWorkflow(ticketMachine)
  open() {
    return { opened: true };
  }

  @McpTool({ name: 'ticket.close', description: 'Close a ticket', inputSchema: ticketInput })
  @BindState('open', 'CLOSE')
  close() {
    return { closed: true };
  }

  /** Reads another ticket through `McpWorkflowService`, as an app's own code would. */
  @McpTool({ name: 'ticket.peek', description: 'Look at another ticket', inputSchema: peekInput })
  async peek(@McpArgs('other') other: string, @McpContext() ctx: McpToolContext) {
    const found = await this.workflows.get(ctx, { handle: other });
    const history = await this.workflows.history(ctx, { handle: other });
    return { found: found?.state ?? null, actors: history.map((entry) => entry.principal) };
  }
}

const caller = (clientId: string, tenant?: string): McpTestCaller => ({
  clientId,
  scopes: [],
  extra: tenant === undefined ? {} : { claims: { tenant } },
});

describe('team access through the gate and McpWorkflowService (team rule, in memory)', () => {
  let app: INestApplication;
  const clients: Client[] = [];

  const as = async (auth: McpTestCaller) => {
    const client = await createMcpTestClient(app, { auth });
    clients.push(client);
    return async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  };
  const open = async (auth: McpTestCaller) => ((await (await as(auth))('ticket.open')).structuredContent as { ticketId: string }).ticketId;

  beforeEach(async () => {
    @Module({
      imports: [
        McpModule.forRoot({
          name: 'tickets',
          version: '1.0.0',
          machines: [ticketMachine],
          store: new InMemoryFsmStateStore({ history: true }),
        }),
      ],
      providers: [TicketTools],
    })
    class AppModule {}
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await app.close();
  });

  it('shows a teammate the instance and its history, naming who acted; another tenant and a token without the claim see none', async () => {
    const shared = await open(caller('alice', 't1'));
    const bob = await as(caller('bob', 't1'));
    expect((await bob('ticket.close', { ticketId: shared })).isError).toBeFalsy();
    const own = await open(caller('bob', 't1'));
    expect((await bob('ticket.peek', { ticketId: own, other: shared })).structuredContent).toEqual({
      found: 'closed',
      actors: ['alice', 'bob'],
    });
    const eve = await as(caller('eve', 't2'));
    const eves = await open(caller('eve', 't2'));
    expect((await eve('ticket.peek', { ticketId: eves, other: shared })).structuredContent).toEqual({ found: null, actors: [] });
    const dave = await as(caller('dave'));
    const daves = await open(caller('dave'));
    expect((await dave('ticket.peek', { ticketId: daves, other: shared })).structuredContent).toEqual({ found: null, actors: [] });
    // Dave's ticket has no team: a t1 principal cannot close it.
    const refused = await bob('ticket.close', { ticketId: daves });
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
  });
});
