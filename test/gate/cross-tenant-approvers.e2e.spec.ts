import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import {
  InMemoryFsmStateStore,
  McpApproval,
  McpApprovalsService,
  McpArgs,
  McpBindState,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
} from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { wireMachine } from '../fixtures/wire-approval.app.js';
import { RecordingLogger } from '../utils/recording-logger.js';

const errorOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined;

/** Wires whose large sends any holder of `wires:audit` decides, whatever their team (`crossTenantApprovers`). */
@Injectable()
@McpWorkflow(wireMachine)
class AuditedWires {
  readonly sent: number[] = [];

  @McpTool({ name: 'wire.open', description: 'Open a wire' })
  @McpStartWorkflow(wireMachine)
  open() {
    return { opened: true };
  }

  @McpTool({ name: 'wire.send', description: 'Send the wire', inputSchema: z.object({ amount: z.number() }) })
  @McpBindState(wireMachine, 'ready', 'SEND')
  @McpApproval(wireMachine, {
    waitIn: 'awaiting',
    approvers: { scopes: ['wires:audit'] },
    crossTenantApprovers: true,
    approve: { name: 'wire.approve' },
    reject: { name: 'wire.reject' },
  })
  send(@McpArgs() input: { amount: number }) {
    this.sent.push(input.amount);
    return { sent: input.amount };
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'audited', version: '1.0.0', machines: [wireMachine], store: new InMemoryFsmStateStore() })],
  providers: [AuditedWires],
})
class AuditedModule {}

describe('@McpApproval crossTenantApprovers: an app that wants approvers of every team says so', () => {
  let app: INestApplication;
  let clients: Client[];
  let logger: RecordingLogger;

  const connect = async (clientId: string, org: string, scopes: string[] = []) => {
    const client = await createMcpTestClient(app, { auth: { clientId, scopes, extra: { claims: { org } } } });
    clients.push(client);
    return async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  };

  beforeEach(async () => {
    logger = new RecordingLogger();
    const moduleRef = await Test.createTestingModule({ imports: [AuditedModule] })
      .setLogger(logger)
      .compile();
    app = moduleRef.createNestApplication();
    await app.init();
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('logs at bootstrap what it opens, and lets an auditor of another team find and decide the request; a stranger without the scope still cannot', async () => {
    expect(
      logger.matching(
        'warn',
        /crossTenantApprovers is on, so every holder of wires:audit may read and decide the waiting wire\.send requests of every "wire" instance/,
      ),
    ).toHaveLength(1);
    const alice = await connect('alice', 'acme');
    const { wireId } = (await alice('wire.open')).structuredContent as { wireId: string };
    const { requestId } = (await alice('wire.send', { wireId, amount: 90 })).structuredContent as { requestId: string };
    const stranger = await connect('eve', 'globex');
    expect(errorOf(await stranger('wire.reject', { wireId, requestId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    const pending = await app
      .get(McpApprovalsService)
      .pending({ authInfo: { token: '', clientId: 'ann', scopes: ['wires:audit'], extra: { claims: { org: 'audit' } } } });
    expect(pending.map((each) => [each.handle, each.mayDecide])).toEqual([[wireId, true]]);
    const auditor = await connect('ann', 'audit', ['wires:audit']);
    expect((await auditor('wire.approve', { wireId, requestId })).structuredContent).toEqual({ sent: 90 });
    expect(app.get(AuditedWires).sent).toEqual([90]);
  });
});
