import { Injectable, Logger, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { DataSource } from 'typeorm';
import {
  type FsmStateStore,
  InMemoryFsmStateStore,
  McpApproval,
  McpBindState,
  McpModule,
  McpStartWorkflow,
  McpTool,
  McpWorkflow,
  McpWorkflowService,
  type WorkflowSnapshot,
} from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { EXPIRY, expiryModule, SETTLE, sendInput, TransferLog, transferMachine } from '../fixtures/transfer-expiry.app.js';
import { TypeOrmFsmStateStore } from '../../lib/typeorm.js';
import { uniqueSuffix } from '../utils/databases.js';
import { createStoreTables, dropStoreTables } from '../utils/store-tables.js';
import { eventually } from '../utils/http-client.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { bootstrapError } from '../utils/test-app.js';

const errorOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string; state: string } | undefined;

describe('@McpApproval expiresAfterMs: a waiting call nobody decides expires as a rejection', () => {
  let app: INestApplication;
  let store: InMemoryFsmStateStore;
  let clients: Client[];

  /** A client of `clientId` holding `scopes`, of the transfer machine's team `acme` (its `org` claim). */
  const connect = async (clientId: string, scopes: string[] = []) => {
    const client = await createMcpTestClient(app, { auth: { clientId, scopes, extra: { claims: { org: 'acme' } } } });
    clients.push(client);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    return {
      client,
      listChanged: () => changes,
      call: async (name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult,
    };
  };
  const key = (transferId: string) => `transfer:${transferId}`;
  const parked = async (agent: Awaited<ReturnType<typeof connect>>, amount = 50) => {
    const { transferId } = (await agent.call('transfer.open')).structuredContent as { transferId: string };
    const waiting = await agent.call('transfer.send', { transferId, amount });
    expect(waiting.structuredContent).toMatchObject({ status: 'waiting_for_approval', state: 'awaiting' });
    return transferId;
  };
  const requestOf = async (transferId: string) => (await store.load(key(transferId)))!.waiting!.requestId;

  beforeEach(async () => {
    store = new InMemoryFsmStateStore({ history: true });
    const moduleRef = await Test.createTestingModule({ imports: [expiryModule(store)] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('parks with a durable expiry timer, then rejects through the gate: back where it was, the deadline in the history, list_changed', async () => {
    const alice = await connect('alice');
    const before = Date.now();
    const transferId = await parked(alice);
    const [timer] = await store.pendingTimers(key(transferId));
    expect(timer).toMatchObject({ id: EXPIRY, event: 'transfer.reject' });
    expect(timer.dueAt).toBeGreaterThanOrEqual(before + 500);
    const changes = alice.listChanged();
    await eventually(async () => (await store.load(key(transferId)))?.state === 'ready', 5_000);
    expect((await store.load(key(transferId)))?.waiting).toBeUndefined();
    expect(app.get(TransferLog).runs).toEqual([]);
    expect(await store.pendingTimers(key(transferId))).toEqual([]);
    expect((await store.history(key(transferId))).at(-1)).toMatchObject({
      from: 'awaiting',
      to: 'ready',
      event: null,
      tool: 'transfer.reject',
      principal: `deadline:${EXPIRY}`,
      approval: { verdict: 'rejected', requestedBy: 'alice', reason: 'expired' },
    });
    await eventually(() => alice.listChanged() > changes, 2_000);
    // Nothing waits any more: there is nothing to approve.
    const approving = app.get(McpWorkflowService).approve({ machine: 'transfer', handle: transferId }, { actor: 'bob', requestId: 'gone' });
    await expect(approving).rejects.toMatchObject({ data: { code: 'STALE_REQUEST', state: 'ready' } });
  });

  it('cancels the expiry when approved first, and schedules the approved transition’s own deadline (it settles by itself)', async () => {
    const alice = await connect('alice');
    const transferId = await parked(alice);
    const bob = await connect('bob', ['transfers:approve']);
    expect((await bob.call('transfer.approve', { transferId, requestId: await requestOf(transferId) })).structuredContent).toEqual({
      sent: 50,
    });
    expect((await store.pendingTimers(key(transferId))).map(({ id }) => id)).toEqual([SETTLE]);
    await eventually(async () => (await store.load(key(transferId)))?.state === 'settled', 5_000);
    expect((await store.history(key(transferId))).map(({ to, principal }) => ({ to, principal }))).toEqual([
      { to: 'ready', principal: 'alice' },
      { to: 'awaiting', principal: 'alice' },
      { to: 'sent', principal: 'bob' },
      { to: 'settled', principal: `deadline:${SETTLE}` },
    ]);
    expect(app.get(TransferLog).runs).toEqual([50]);
  });

  it('cancels the expiry when rejected first, by the tool or by McpWorkflowService', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob', ['transfers:approve']);
    const byTool = await parked(alice);
    await bob.call('transfer.reject', { transferId: byTool, requestId: await requestOf(byTool), reason: 'no' });
    const byService = await parked(alice);
    const ref = { machine: 'transfer', handle: byService };
    await app.get(McpWorkflowService).reject(ref, { actor: 'carol', requestId: await requestOf(byService) });
    for (const transferId of [byTool, byService]) {
      expect(await store.pendingTimers(key(transferId))).toEqual([]);
      expect((await store.load(key(transferId)))?.state).toBe('ready');
    }
    // Parked again after a rejection: a fresh timer, which alone fires.
    const again = await parked(alice, 60);
    await eventually(async () => (await store.load(key(again)))?.state === 'ready', 5_000);
    expect((await store.history(key(byTool))).filter(({ principal }) => principal?.startsWith('deadline:'))).toEqual([]);
  });

  it('completes the task waiting on an expired request with a DECLINED tool error saying it expired', async () => {
    const alice = await connect('alice');
    const { transferId } = (await alice.call('transfer.open')).structuredContent as { transferId: string };
    const params = { name: 'transfer.send', arguments: { transferId, amount: 50 }, task: {} };
    const { task } = await alice.client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
    await eventually(async () => (await store.load(key(transferId)))?.waiting?.taskId === task.taskId, 5_000);
    const declined = (await alice.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(declined.isError).toBe(true);
    expect(errorOf(declined)).toMatchObject({ code: 'DECLINED', state: 'ready' });
    expect((declined.content[0] as { text: string }).text).toMatch(
      /^DECLINED: "transfer\.send" did not run: nobody decided the request in time: it expired \(mcp\.approval-expiry\.transfer\.send\)/,
    );
  });

  it('refuses a call whose expiry cannot be worked out (fail closed: nothing waits with no end), logging why', async () => {
    const alice = await connect('alice');
    const { transferId } = (await alice.call('transfer.open')).structuredContent as { transferId: string };
    const logger = new RecordingLogger();
    Logger.overrideLogger(logger);
    let refused: CallToolResult;
    try {
      refused = await alice.call('transfer.send', { transferId, amount: 13 });
    } finally {
      Logger.overrideLogger(false as never);
    }
    expect(errorOf(refused)).toMatchObject({ code: 'DECLINED', state: 'ready' });
    expect((refused.content[0] as { text: string }).text).toContain(
      "the request's expiry (@McpApproval's expiresAfterMs) could not be worked out",
    );
    expect(logger.matching('error', /^@McpApproval's expiresAfterMs of transfer\.send failed.*answered -1/)).toHaveLength(1);
    expect(await store.load(key(transferId))).toMatchObject({ state: 'ready' });
    expect(await store.pendingTimers(key(transferId))).toEqual([]);
  });
});

describe('@McpApproval expiresAfterMs at bootstrap', () => {
  it('fails naming the machine when the store keeps no timers', async () => {
    const rows = new Map<string, WorkflowSnapshot>();
    const plain: FsmStateStore = { load: async (key) => rows.get(key), save: async (key, snapshot) => void rows.set(key, snapshot) };
    expect(await bootstrapError([expiryModule(plain)])).toMatch(
      /^McpModule: machine "transfer" has deadlines \("after" transitions, or an @McpApproval with expiresAfterMs\), and the store .* keeps no timers/,
    );
  });

  it('fails naming the tool when the delay is not a positive whole number of milliseconds', async () => {
    @McpWorkflow(transferMachine)
    @Injectable()
    class BadTools {
      @McpTool({ name: 'transfer.open', description: 'Open' })
      @McpStartWorkflow(transferMachine)
      open() {
        return {};
      }

      @McpTool({ name: 'transfer.send', description: 'Send', inputSchema: sendInput })
      @McpBindState(transferMachine, 'ready', 'SEND')
      @McpApproval(transferMachine, { waitIn: 'awaiting', approve: { name: 'a' }, reject: { name: 'r' }, expiresAfterMs: 1.5 })
      send() {
        return {};
      }
    }
    @Module({})
    class BadModule {}
    const error = await bootstrapError([
      {
        module: BadModule,
        imports: [McpModule.forRoot({ name: 'bad', version: '1.0.0', machines: [transferMachine] })],
        providers: [BadTools],
      },
    ]);
    expect(error).toMatch(/BadTools\.send: @McpApproval's expiresAfterMs must be a positive whole number of milliseconds.*\(got 1\.5\)/);
  });
});

const postgres = process.env.TEST_POSTGRES_URL;
(postgres ? describe : describe.skip)('@McpApproval expiresAfterMs on two apps sharing PostgreSQL', () => {
  const suffix = uniqueSuffix();
  const tables = { tableName: `exp_state_${suffix}`, historyTableName: `exp_hist_${suffix}`, timerTableName: `exp_timer_${suffix}` };
  let sources: DataSource[];
  let apps: INestApplication[];
  let clients: Client[];

  beforeAll(async () => {
    sources = await Promise.all([0, 1].map(() => new DataSource({ type: 'postgres', url: postgres }).initialize()));
    await createStoreTables(sources[0], tables);
    apps = [];
    for (const source of sources) {
      const store = new TypeOrmFsmStateStore(source, { ...tables, history: true });
      const moduleRef = await Test.createTestingModule({ imports: [expiryModule(store)] }).compile();
      const app = moduleRef.createNestApplication();
      await app.init();
      apps.push(app);
    }
    clients = [];
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(apps.map((app) => app.close()));
    await dropStoreTables(sources[0], tables);
    await Promise.all(sources.map((source) => source.destroy()));
  });

  it('expires each of ten waiting requests exactly once, whichever app claims its timer', async () => {
    const agents = await Promise.all(apps.map((app) => createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } })));
    clients.push(...agents);
    const call = async (agent: Client, name: string, args: Record<string, unknown>) =>
      (await agent.callTool({ name, arguments: args })) as CallToolResult;
    const transfers = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const agent = agents[i % 2];
        const { transferId } = (await call(agent, 'transfer.open', {})).structuredContent as { transferId: string };
        expect((await call(agent, 'transfer.send', { transferId, amount: 50 + i })).structuredContent).toMatchObject({
          status: 'waiting_for_approval',
        });
        return transferId;
      }),
    );
    const store = new TypeOrmFsmStateStore(sources[1], { ...tables, history: true });
    await eventually(async () => {
      const states = await Promise.all(transfers.map(async (transferId) => (await store.load(`transfer:${transferId}`))?.state));
      return states.every((state) => state === 'ready');
    }, 15_000);
    // Both apps keep polling: a second firing would show as a second expiry row.
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const transferId of transfers) {
      const history = await store.history(`transfer:${transferId}`);
      expect(history.filter(({ principal }) => principal === `deadline:${EXPIRY}`)).toHaveLength(1);
      expect(history.map(({ to }) => to)).toEqual(['ready', 'awaiting', 'ready']);
      expect(await store.pendingTimers(`transfer:${transferId}`)).toEqual([]);
    }
  });
});
