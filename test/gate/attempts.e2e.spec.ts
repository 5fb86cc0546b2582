import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  BindState,
  defineAccess,
  defineMachine,
  InMemoryFsmStateStore,
  McpModule,
  McpRequire,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
} from '../../lib/index.js';
import { createMcpTestClient, type McpTestCaller } from '../../lib/testing.js';
import type { WorkflowAttemptRecord } from '../../lib/stores/workflow-attempt.interface.js';

/** A claim any principal of its submitter's `org` may act on; paying it needs `claims:pay`. */
const claimMachine = defineMachine(
  {
    id: 'claim',
    initial: 'submitted',
    states: { submitted: { on: { APPROVE: 'approved' } }, approved: { on: { PAY: 'paid' } }, paid: { type: 'final' } },
  },
  { stateHandleKey: 'claimId', access: { team: 'org' } },
);
const claimAccess = defineAccess({ scopes: ['claims:pay'] });
const claimInput = z.object({ claimId: z.string(), note: z.string().optional(), lines: z.array(z.number()).optional() });

@Injectable()
@McpWorkflow(claimMachine)
class ClaimTools {
  @McpTool({ name: 'claim.submit', description: 'Submit a claim' })
  @McpStartWorkflow(claimMachine)
  submit() {
    return { submitted: true };
  }

  @McpTool({ name: 'claim.approve', description: 'Approve a claim', inputSchema: claimInput })
  @BindState('submitted', 'APPROVE')
  approve() {
    return { approved: true };
  }

  @McpTool({ name: 'claim.pay', description: 'Pay an approved claim', inputSchema: claimInput })
  @BindState('approved', 'PAY')
  @McpRequire(claimAccess, { scopes: ['claims:pay'] })
  pay() {
    return { paid: true };
  }
}

const member = (clientId: string, org: string, scopes: string[] = []): McpTestCaller => ({
  clientId,
  scopes,
  extra: { claims: { org } },
});

/**
 * What the gate's attempt recorder writes through a real SDK client (in memory): every refusal
 * the docs list, a teammate's missing scope included, with the refusal's own message and the
 * arguments cut; at most 50 per instance however many calls are refused at once.
 */
describe('refused attempts recorded by the gate (InMemoryFsmStateStore with attempts)', () => {
  let app: INestApplication;
  let store: InMemoryFsmStateStore;
  const clients: Client[] = [];

  const as = async (auth: McpTestCaller) => {
    const client = await createMcpTestClient(app, { auth });
    clients.push(client);
    return (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult | McpError> =>
      client.callTool({ name, arguments: args }).then(
        (result) => result as CallToolResult,
        (error: unknown) => {
          if (error instanceof McpError) return error;
          throw error;
        },
      );
  };
  const submit = async (caller: Awaited<ReturnType<typeof as>>) =>
    ((await caller('claim.submit')) as CallToolResult).structuredContent!.claimId as string;
  const refusalCode = (answer: CallToolResult | McpError) =>
    answer instanceof McpError ? answer.code : (answer._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;
  /** The attempts of `claimId` once the writes in flight landed (the app is closed: its recorder waits for them). */
  const attemptsAfterClose = async (claimId: string): Promise<WorkflowAttemptRecord[]> => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await app.close();
    return store.recentAttempts(`claim:${claimId}`, 1_000);
  };

  beforeEach(async () => {
    store = new InMemoryFsmStateStore({ attempts: true });
    @Module({
      imports: [McpModule.forRoot({ name: 'claims', version: '1.0.0', machines: [claimMachine], store })],
      providers: [ClaimTools],
    })
    class AppModule {}
    app = (await Test.createTestingModule({ imports: [AppModule] }).compile()).createNestApplication({ logger: false });
    await app.init();
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await app.close();
  });

  it("keeps a refusal's message as the caller read it and its arguments, cut", async () => {
    const alice = await as(member('alice', 'acme', ['claims:pay']));
    const claimId = await submit(alice);
    const note = 'n'.repeat(5_000);
    const refused = (await alice('claim.pay', { claimId, note, lines: [1, 2, 3] })) as CallToolResult;
    expect(refusalCode(refused)).toBe('FORBIDDEN');
    const [attempt] = await attemptsAfterClose(claimId);
    expect(attempt).toEqual({
      machine: 'claim',
      key: `claim:${claimId}`,
      tool: 'claim.pay',
      code: 'FORBIDDEN',
      principal: 'alice',
      at: expect.any(String),
      message: (refused.content[0] as { text: string }).text,
      args: { claimId, note: `${'n'.repeat(64)}…`, lines: '[1,2,3]' },
    });
  });

  it("records a teammate's call refused for a missing scope on the team's claim, and nothing for another org's principal", async () => {
    const alice = await as(member('alice', 'acme', ['claims:pay']));
    const claimId = await submit(alice);
    await alice('claim.approve', { claimId });
    const bob = await as(member('bob', 'acme'));
    expect(refusalCode(await bob('claim.pay', { claimId }))).toBe(-32003);
    const eve = await as(member('eve', 'globex'));
    expect(refusalCode(await eve('claim.pay', { claimId }))).toBe(-32003);
    const attempts = await attemptsAfterClose(claimId);
    expect(attempts.map(({ principal, code, tool }) => ({ principal, code, tool }))).toEqual([
      { principal: 'bob', code: 'INSUFFICIENT_SCOPE', tool: 'claim.pay' },
    ]);
    expect(attempts[0].message).toContain('claims:pay');
  });

  it('keeps at most 50 attempts of one claim when 300 refused calls come at once', async () => {
    const alice = await as(member('alice', 'acme'));
    const claimId = await submit(alice);
    const refused = await Promise.all(Array.from({ length: 300 }, (_, i) => alice('claim.approve', { claimId, note: `call ${i}` })));
    expect(refused.filter((answer) => refusalCode(answer) === undefined)).toHaveLength(1);
    const attempts = await attemptsAfterClose(claimId);
    expect(attempts).toHaveLength(50);
  });
});
