import type { INestApplication } from '@nestjs/common';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { ApprovalLog, approvalModule } from '../fixtures/approval.app.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { connectClient, mcpUrl, textOf, type TestClient } from '../utils/http-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { listenApp } from '../utils/test-app.js';

interface Refusal {
  code: string;
  tool: string;
  machine: string;
  state: string | null;
  allowedTools: string[];
}

interface Status {
  approvalId: string;
  state: string;
  context: { approvers: string[] };
}

const refusalOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as Refusal | undefined;
const gateStateOf = (result: CallToolResult) => (result._meta?.['nestjs-mcp-fsm/state'] as { state: string } | undefined)?.state;

/** One app on its own DataSource (its own connections), as a separate process would have. */
interface Node {
  dataSource: DataSource;
  app: INestApplication;
  agent: TestClient;
  log: ApprovalLog;
  close: () => Promise<void>;
}

describe.each(databaseTargets('two approvals e2e'))('two distinct approvers on $name', ({ options }) => {
  const suffix = `ap_${uniqueSuffix()}`;
  const tables = { tableName: `ap_state_${suffix}`, historyTableName: `ap_history_${suffix}` };
  let admin: DataSource;
  let store: TypeOrmFsmStateStore;
  const open: Node[] = [];

  const startNode = async (): Promise<Node> => {
    const dataSource = new DataSource(options() as DataSourceOptions);
    await dataSource.initialize();
    const app = await listenApp([approvalModule({ store: new TypeOrmFsmStateStore(dataSource, tables) })]);
    const agent = await connectClient(await mcpUrl(app));
    let closed = false;
    const node: Node = {
      dataSource,
      app,
      agent,
      log: app.get(ApprovalLog),
      close: async () => {
        if (closed) return;
        closed = true;
        await agent.close();
        await app.close();
        await dataSource.destroy();
      },
    };
    open.push(node);
    return node;
  };

  const request = async (node: Node): Promise<string> => {
    const started = await node.agent.call('approval.request');
    expect(started.isError).toBeFalsy();
    const { approvalId } = started.structuredContent as { approvalId: string };
    expect(approvalId).toEqual(expect.any(String));
    return approvalId;
  };

  const status = async (node: Node, approvalId: string): Promise<Status> => {
    const read = await node.agent.call('approval.status', { approvalId });
    expect(read.isError).toBeFalsy();
    return read.structuredContent as unknown as Status;
  };

  const expectGuardRejected = (result: CallToolResult) => {
    expect(result.isError).toBe(true);
    expect(refusalOf(result)).toEqual({
      code: 'GUARD_REJECTED',
      tool: 'approval.approve',
      machine: 'approval',
      state: 'review',
      allowedTools: expect.arrayContaining(['approval.approve']),
      errorId: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    const text = textOf(result);
    expect(text).toMatch(/^GUARD_REJECTED: /);
    expect(text).toContain('"APPROVE"');
    expect(text).toContain('isSecondDistinctApprover');
  };

  beforeAll(async () => {
    admin = new DataSource(options() as DataSourceOptions);
    await admin.initialize();
    await createStoreTables(admin, tables);
    store = new TypeOrmFsmStateStore(admin, tables);
  });

  afterEach(async () => {
    for (const node of open.splice(0)) {
      await node.close();
    }
  });

  afterAll(async () => {
    await dropStoreTables(admin, tables);
    await admin.destroy();
  });

  it('moves to approved only on the second distinct approver; the same approver twice is GUARD_REJECTED', async () => {
    const node = await startNode();
    const approvalId = await request(node);

    const first = await node.agent.call('approval.approve', { approvalId, approver: 'alice' });
    expect(first.isError).toBeFalsy();
    expect(gateStateOf(first)).toBe('review');
    const afterFirst = await store.load(`approval:${approvalId}`);
    expect(afterFirst).toMatchObject({ state: 'review', context: { approvers: ['alice'] } });

    const again = await node.agent.call('approval.approve', { approvalId, approver: 'alice' });
    expectGuardRejected(again);
    expect(node.log.count('approval.approve')).toBe(1);
    expect(await store.load(`approval:${approvalId}`)).toEqual(afterFirst);

    const second = await node.agent.call('approval.approve', { approvalId, approver: 'bob' });
    expect(second.isError).toBeFalsy();
    expect(gateStateOf(second)).toBe('approved');
    expect(node.log.count('approval.approve')).toBe(2);
    expect(await status(node, approvalId)).toEqual({ approvalId, state: 'approved', context: { approvers: ['alice', 'bob'] } });
  });

  it('remembers the approver across a restart, and a second app on its own DataSource completes it', async () => {
    const a = await startNode();
    const approvalId = await request(a);
    const first = await a.agent.call('approval.approve', { approvalId, approver: 'alice' });
    expect(first.isError).toBeFalsy();
    await a.close();

    // A restart: a new app, new connections, the same tables.
    const restarted = await startNode();
    const beforeRetry = await store.load(`approval:${approvalId}`);
    expect(beforeRetry).toMatchObject({ state: 'review', context: { approvers: ['alice'] } });
    const again = await restarted.agent.call('approval.approve', { approvalId, approver: 'alice' });
    expectGuardRejected(again);
    expect(restarted.log.count('approval.approve')).toBe(0);
    expect(await store.load(`approval:${approvalId}`)).toEqual(beforeRetry);
    expect(await status(restarted, approvalId)).toEqual({ approvalId, state: 'review', context: { approvers: ['alice'] } });

    // Another app open at the same time on its own DataSource.
    const b = await startNode();
    const second = await b.agent.call('approval.approve', { approvalId, approver: 'bob' });
    expect(second.isError).toBeFalsy();
    expect(gateStateOf(second)).toBe('approved');
    expect(b.log.count('approval.approve')).toBe(1);

    expect(await status(restarted, approvalId)).toEqual({ approvalId, state: 'approved', context: { approvers: ['alice', 'bob'] } });
    expect(await store.load(`approval:${approvalId}`)).toMatchObject({ state: 'approved', context: { approvers: ['alice', 'bob'] } });

    // Done: a third approver is not let in, on either app.
    const late = await restarted.agent.call('approval.approve', { approvalId, approver: 'carol' });
    expect(late.isError).toBe(true);
    expect(refusalOf(late)?.code).toBe('FORBIDDEN');
    expect(refusalOf(late)?.state).toBe('approved');
    expect(restarted.log.count('approval.approve')).toBe(0);
  });
});
