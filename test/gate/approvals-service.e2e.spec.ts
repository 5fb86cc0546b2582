import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { WorkflowRefusal } from '../../lib/extend.js';
import { McpApprovalsService, type McpDecider } from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { approvalModule, WireLog } from '../fixtures/wire-approval.app.js';
import { databaseTargets, uniqueSuffix } from '../utils/databases.js';
import { eventually } from '../utils/http-client.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';

/** A person as the console knows them: a verified principal with scopes and the team claim `org`. */
const person = (clientId: string, scopes: string[] = [], org = 'acme'): McpDecider => ({
  authInfo: { token: '', clientId, scopes, extra: { claims: { org } } },
});

/**
 * The approvals API for a person deciding outside an MCP call (the console): the waiting requests
 * their access rule opens, and deciding one as them through the gate, on every store database.
 */
describe.each(databaseTargets('approvals service e2e'))('McpApprovalsService on $name', ({ options }) => {
  const suffix = `aps_${uniqueSuffix()}`;
  const tables = { tableName: `aps_state_${suffix}`, historyTableName: `aps_history_${suffix}` };
  let dataSource: DataSource;
  let store: TypeOrmFsmStateStore;
  let app: INestApplication;
  let approvals: McpApprovalsService;
  let clients: Client[];

  const connect = async (clientId: string, org = 'acme') => {
    const client = await createMcpTestClient(app, { auth: { clientId, scopes: [], extra: { claims: { org } } } });
    clients.push(client);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;
    return { call, changes: () => changes };
  };
  /** A wire of alice's team, opened by `agent`, with a send of `amount` waiting: its id and the request's. */
  const waitingWire = async (agent: Awaited<ReturnType<typeof connect>>, amount = 50) => {
    const { wireId } = (await agent.call('wire.open')).structuredContent as { wireId: string };
    const parked = (await agent.call('wire.send', { wireId, amount })).structuredContent as { requestId: string };
    return { wireId, requestId: parked.requestId };
  };

  beforeAll(async () => {
    dataSource = await new DataSource(options() as DataSourceOptions).initialize();
    await createStoreTables(dataSource, tables);
  });

  afterAll(async () => {
    await dropStoreTables(dataSource, tables);
    await dataSource.destroy();
  });

  beforeEach(async () => {
    store = new TypeOrmFsmStateStore(dataSource, { ...tables, history: true });
    const moduleRef = await Test.createTestingModule({ imports: [approvalModule(store)] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    approvals = app.get(McpApprovalsService);
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('lists the waiting requests of the person’s team, newest first, saying whether they may decide each; another team sees none', async () => {
    const alice = await connect('alice');
    const first = await waitingWire(alice, 50);
    const second = await waitingWire(alice, 70);
    const mine = (await approvals.pending(person('bob', ['wires:approve']), { machine: 'wire' })).filter((each) =>
      [first.wireId, second.wireId].includes(each.handle),
    );
    expect(mine).toEqual([
      expect.objectContaining({ handle: second.wireId, requestId: second.requestId, input: { wireId: second.wireId, amount: 70 } }),
      expect.objectContaining({ handle: first.wireId, requestId: first.requestId }),
    ]);
    expect(mine[0]).toMatchObject({
      machine: 'wire',
      tool: 'wire.send',
      requestedBy: 'alice',
      requestedAt: expect.any(String),
      from: { state: 'ready' },
      state: 'awaiting',
      approve: 'wire.approve',
      reject: 'wire.reject',
      mayDecide: true,
      asked: false,
    });
    const asked = await approvals.pending(person('alice', ['wires:approve']));
    expect(asked.find((each) => each.handle === first.wireId)).toMatchObject({ mayDecide: false, asked: true });
    const noGrants = await approvals.pending(person('carol'));
    expect(noGrants.find((each) => each.handle === first.wireId)).toMatchObject({ mayDecide: false, asked: false });
    expect((await approvals.pending(person('eve', ['wires:approve'], 'globex'))).map((each) => each.handle)).not.toContain(first.wireId);
    expect(await approvals.pending({})).toEqual([]);
  });

  it('approves as the person through the gate: the handler runs once, history names them', async () => {
    const alice = await connect('alice');
    const { wireId, requestId } = await waitingWire(alice);
    const decided = await approvals.decide(person('bob', ['wires:approve']), {
      machine: 'wire',
      handle: wireId,
      requestId,
      verdict: 'approve',
    });
    expect(decided).toMatchObject({ verdict: 'approved', requestId, state: 'sent', result: { structuredContent: { sent: 50 } } });
    expect(app.get(WireLog).runs).toEqual([
      { tool: 'wire.send', amount: 50, approval: { requestedBy: 'alice', approvedBy: 'bob', requestedAt: expect.any(String), requestId } },
    ]);
    expect((await store.history(`wire:${wireId}`)).at(-1)).toMatchObject({
      to: 'sent',
      tool: 'wire.approve',
      principal: 'bob',
      approval: { verdict: 'approved', requestedBy: 'alice', requestId },
    });
    const again = approvals.decide(person('bob', ['wires:approve']), { machine: 'wire', handle: wireId, requestId, verdict: 'approve' });
    await expect(again).rejects.toMatchObject({ data: { code: 'STALE_REQUEST', state: 'sent' } });
    expect(app.get(WireLog).runs).toHaveLength(1);
  });

  it('refuses what the decision tools refuse, changing nothing: a stale id, another team, the requester’s approval, a teammate without the grants', async () => {
    const alice = await connect('alice');
    const { wireId, requestId } = await waitingWire(alice);
    const decide = (who: McpDecider, id: string, verdict: 'approve' | 'reject' = 'approve') =>
      approvals.decide(who, { machine: 'wire', handle: wireId, requestId: id, verdict });
    await expect(decide(person('bob', ['wires:approve']), 'not-the-one')).rejects.toMatchObject({
      data: { code: 'STALE_REQUEST', waitingRequestId: requestId },
    });
    await expect(decide(person('eve', ['wires:approve'], 'globex'), requestId)).rejects.toMatchObject({ data: { code: 'UNKNOWN_HANDLE' } });
    await expect(decide(person('alice', ['wires:approve']), requestId)).rejects.toMatchObject({ data: { code: 'SELF_APPROVAL' } });
    const refused = decide(person('carol'), requestId, 'reject');
    await expect(refused).rejects.toBeInstanceOf(WorkflowRefusal);
    await expect(refused).rejects.toMatchObject({ data: { code: 'NOT_APPROVER' }, message: expect.stringContaining('wires:approve') });
    expect(await store.load(`wire:${wireId}`)).toMatchObject({ state: 'awaiting', waiting: { requestId } });
    expect(app.get(WireLog).runs).toEqual([]);
    await expect(approvals.decide(person('bob'), { machine: 'nope', handle: wireId, requestId, verdict: 'approve' })).rejects.toThrow(
      /machine must name a handle-keyed machine/,
    );
  });

  it('lets the requester withdraw without the approvers’ grants: back to where it was, history says withdrawn, her session is told', async () => {
    const alice = await connect('alice');
    const { wireId, requestId } = await waitingWire(alice);
    const told = alice.changes();
    const withdrawn = await approvals.decide(person('alice'), {
      machine: 'wire',
      handle: wireId,
      requestId,
      verdict: 'reject',
      reason: 'typo',
    });
    expect(withdrawn).toMatchObject({
      verdict: 'withdrawn',
      state: 'ready',
      result: { structuredContent: { status: 'withdrawn', state: 'ready' } },
    });
    expect((await store.history(`wire:${wireId}`)).at(-1)).toMatchObject({
      from: 'awaiting',
      to: 'ready',
      tool: 'wire.reject',
      principal: 'alice',
      approval: { verdict: 'withdrawn', requestedBy: 'alice', requestId, reason: 'typo' },
    });
    expect(await store.load(`wire:${wireId}`)).not.toHaveProperty('waiting');
    // wire.send is on her menu again.
    await eventually(() => alice.changes() > told, 2_000);
  });
});
