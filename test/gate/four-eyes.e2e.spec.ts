import { Logger, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { WorkflowRefusal } from '../../lib/extend.js';
import { InMemoryFsmStateStore, McpWorkflowService } from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { approvalModule, WireLog } from '../fixtures/wire-approval.app.js';
import { eventually } from '../utils/http-client.js';
import { RecordingLogger } from '../utils/recording-logger.js';

const errorOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string; state: string } | undefined;

describe('@McpApproval: a second person decides a waiting call', () => {
  let app: INestApplication;
  let store: InMemoryFsmStateStore;
  let log: WireLog;
  let clients: Client[];

  /** A client of `clientId` holding `scopes`, of team `org` (the wire machine's team claim). */
  const connect = async (clientId: string, scopes: string[] = [], org = 'acme') => {
    const client = await createMcpTestClient(app, { auth: { clientId, scopes, extra: { claims: { org } } } });
    clients.push(client);
    return {
      call: async (name: string, args: Record<string, unknown> = {}) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult,
      names: async () => (await client.listTools()).tools.map((tool) => tool.name),
    };
  };
  const opened = async (agent: Awaited<ReturnType<typeof connect>>) =>
    ((await agent.call('wire.open')).structuredContent as { wireId: string }).wireId;

  beforeEach(async () => {
    store = new InMemoryFsmStateStore({ history: true });
    const moduleRef = await Test.createTestingModule({ imports: [approvalModule(store)] }).compile();
    app = moduleRef.createNestApplication();
    await app.init();
    log = app.get(WireLog);
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
  });

  it('runs a call `when` does not hold at once, and parks the others without running the handler', async () => {
    const alice = await connect('alice');
    const small = await opened(alice);
    expect((await alice.call('wire.send', { wireId: small, amount: 5 })).structuredContent).toEqual({ sent: 5, state: 'ready' });
    const large = await opened(alice);
    const parked = await alice.call('wire.send', { wireId: large, amount: 50 });
    expect(parked.structuredContent).toMatchObject({ status: 'waiting_for_approval', state: 'awaiting', approve: 'wire.approve' });
    const { requestId } = parked.structuredContent as { requestId: string };
    expect(requestId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(log.runs).toEqual([{ tool: 'wire.send', amount: 5, approval: undefined }]);
    const stored = await store.load(`wire:${large}`);
    expect(stored).toMatchObject({
      state: 'awaiting',
      owner: 'alice',
      waiting: {
        requestId,
        tool: 'wire.send',
        event: 'SEND',
        input: { wireId: large, amount: 50 },
        requestedBy: 'alice',
        requester: { id: 'alice', scopes: [], roles: [], claims: { org: 'acme' } },
        from: { state: 'ready' },
      },
    });
    // Every request has an id of its own.
    const other = await opened(alice);
    const again = (await alice.call('wire.send', { wireId: other, amount: 50 })).structuredContent as { requestId: string };
    expect(again.requestId).not.toBe(requestId);
    expect((await store.history(`wire:${large}`)).at(-1)).toMatchObject({
      from: 'ready',
      to: 'awaiting',
      tool: 'wire.send',
      principal: 'alice',
    });
  });

  it('parks a call whose `when` throws (fail closed), logging why', async () => {
    const alice = await connect('alice');
    const wireId = await opened(alice);
    const logger = new RecordingLogger();
    Logger.overrideLogger(logger);
    try {
      expect((await alice.call('wire.send', { wireId, amount: 7 })).structuredContent).toMatchObject({ status: 'waiting_for_approval' });
    } finally {
      Logger.overrideLogger(false as never);
    }
    expect(log.runs).toEqual([]);
    expect(
      logger.matching(
        'error',
        /^@McpApproval's when of wire\.send threw, so the call waits for a second person's approval: no rate for 7$/,
      ),
    ).toHaveLength(1);
  });

  it('approves with the stored arguments on the state the call found, telling the handler who asked and who approved; history names both', async () => {
    const alice = await connect('alice');
    const wireId = await opened(alice);
    const { requestId } = (await alice.call('wire.send', { wireId, amount: 50 })).structuredContent as { requestId: string };
    const bob = await connect('bob', ['wires:approve']);
    const approved = await bob.call('wire.approve', { wireId, requestId });
    expect(approved.isError).toBeFalsy();
    expect(approved.structuredContent).toEqual({ sent: 50, state: 'ready' });
    expect(log.runs).toEqual([
      { tool: 'wire.send', amount: 50, approval: { requestedBy: 'alice', approvedBy: 'bob', requestedAt: expect.any(String), requestId } },
    ]);
    expect(await store.load(`wire:${wireId}`)).toMatchObject({ state: 'sent', owner: 'alice' });
    expect((await store.load(`wire:${wireId}`))?.waiting).toBeUndefined();
    expect((await store.history(`wire:${wireId}`)).at(-1)).toMatchObject({
      from: 'awaiting',
      to: 'sent',
      event: 'SEND',
      tool: 'wire.approve',
      principal: 'bob',
      approval: { verdict: 'approved', requestedBy: 'alice', requestId },
    });
  });

  it('refuses an approver of another team UNKNOWN_HANDLE, as for a forged handle, whatever they hold; nothing changes', async () => {
    const alice = await connect('alice');
    const wireId = await opened(alice);
    const { requestId } = (await alice.call('wire.send', { wireId, amount: 50 })).structuredContent as { requestId: string };
    const eve = await connect('eve', ['wires:approve'], 'globex');
    expect(errorOf(await eve.call('wire.approve', { wireId, requestId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect(errorOf(await eve.call('wire.reject', { wireId, requestId, reason: 'mine now' }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect(await store.load(`wire:${wireId}`)).toMatchObject({ state: 'awaiting', waiting: { requestId } });
    expect(log.runs).toEqual([]);
  });

  it('refuses SELF_APPROVAL to the requester holding the approvers’ scope; a tool error that names the rule, nothing changed', async () => {
    const alice = await connect('alice', ['wires:approve']);
    const wireId = await opened(alice);
    const { requestId } = (await alice.call('wire.send', { wireId, amount: 50 })).structuredContent as { requestId: string };
    expect(await alice.names()).toEqual(expect.arrayContaining(['wire.approve', 'wire.reject']));
    const own = await alice.call('wire.approve', { wireId, requestId });
    expect(errorOf(own)).toMatchObject({ code: 'SELF_APPROVAL', state: 'awaiting' });
    expect((own.content[0] as { text: string }).text).toMatch(/^SELF_APPROVAL: "wire.approve" needs a second person: "alice" asked for it/);
    expect(log.runs).toEqual([]);
    expect(await store.load(`wire:${wireId}`)).toMatchObject({ state: 'awaiting', waiting: { requestedBy: 'alice' } });
  });

  it('parks a call of a tool among the app’s interceptors too (the method never runs); approving runs it there', async () => {
    const alice = await connect('alice');
    const wireId = await opened(alice);
    const parked = await alice.call('wire.audit', { wireId, amount: 1 });
    expect(parked.structuredContent).toMatchObject({ status: 'waiting_for_approval', state: 'awaiting_audit' });
    expect(log.runs).toEqual([]);
    expect(log.intercepted).toEqual([expect.objectContaining({ status: 'waiting_for_approval' })]);
    // No approvers: the machine's own rule (the owner) reaches it, and the owner asked, so only another route decides.
    const workflows = app.get(McpWorkflowService);
    const ref = { machine: 'wire', handle: wireId };
    const { requestId } = (await workflows.waiting(ref))!;
    expect(await workflows.approve(ref, { actor: 'carol', requestId })).toMatchObject({ state: 'audited', verdict: 'approved' });
    expect(log.runs).toEqual([{ tool: 'wire.audit', amount: 1 }]);
  });

  it('decides from the app’s own code with McpWorkflowService: waiting, SELF_APPROVAL, reject with a reason, approve', async () => {
    const alice = await connect('alice');
    const wireId = await opened(alice);
    await alice.call('wire.send', { wireId, amount: 50 });
    const workflows = app.get(McpWorkflowService);
    const ref = { machine: 'wire', handle: wireId };
    const asked = (await workflows.waiting(ref))!;
    expect(asked).toMatchObject({ tool: 'wire.send', requestedBy: 'alice', input: { amount: 50 } });
    const { requestId } = asked;
    const own = workflows.approve(ref, { actor: 'alice', requestId });
    await expect(own).rejects.toBeInstanceOf(WorkflowRefusal);
    await expect(own).rejects.toMatchObject({ data: { code: 'SELF_APPROVAL' } });
    const rejected = await workflows.reject(ref, { actor: 'carol', requestId, reason: 'wrong account' });
    expect(rejected).toMatchObject({
      verdict: 'rejected',
      requestId,
      state: 'ready',
      result: { structuredContent: { status: 'rejected', state: 'ready', requestId } },
    });
    expect(await workflows.waiting(ref)).toBeUndefined();
    expect((await store.history(`wire:${wireId}`)).at(-1)).toMatchObject({
      from: 'awaiting',
      to: 'ready',
      event: null,
      tool: 'wire.reject',
      principal: 'carol',
      approval: { verdict: 'rejected', requestedBy: 'alice', requestId, reason: 'wrong account' },
    });
    // Decided: the same request again is stale, and so is it once another request waits (a replay never decides the new one).
    await expect(workflows.approve(ref, { actor: 'carol', requestId })).rejects.toMatchObject({ data: { code: 'STALE_REQUEST' } });
    await alice.call('wire.send', { wireId, amount: 70 });
    const next = (await workflows.waiting(ref))!.requestId;
    expect(next).not.toBe(requestId);
    await expect(workflows.approve(ref, { actor: 'carol', requestId })).rejects.toMatchObject({
      data: { code: 'STALE_REQUEST', waitingRequestId: next },
    });
    expect(await workflows.approve(ref, { actor: 'carol', requestId: next })).toMatchObject({
      state: 'sent',
      result: { structuredContent: { sent: 70 } },
    });
    expect(log.runs).toHaveLength(1);
  });

  it('completes the task of a decided request: with the handler’s result once approved, with a DECLINED tool error once rejected', async () => {
    const client = await createMcpTestClient(app, { auth: { clientId: 'alice', scopes: [] } });
    clients.push(client);
    const alice = await connect('alice');
    const asTask = async () => {
      const wireId = await opened(alice);
      const params = { name: 'wire.send', arguments: { wireId, amount: 50 }, task: {} };
      const { task } = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
      // The task runs its call after answering: the call parks with the task's id.
      await eventually(async () => (await store.load(`wire:${wireId}`))?.waiting?.taskId === task.taskId, 5_000);
      expect(await client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
      return { wireId, taskId: task.taskId, requestId: (await store.load(`wire:${wireId}`))!.waiting!.requestId };
    };
    const approved = await asTask();
    const rejected = await asTask();
    const bob = await connect('bob', ['wires:approve']);
    await bob.call('wire.approve', { wireId: approved.wireId, requestId: approved.requestId });
    await bob.call('wire.reject', { wireId: rejected.wireId, requestId: rejected.requestId, reason: 'not today' });
    expect(await client.experimental.tasks.getTaskResult(approved.taskId, CallToolResultSchema)).toMatchObject({
      structuredContent: { sent: 50, state: 'ready' },
    });
    const declined = (await client.experimental.tasks.getTaskResult(rejected.taskId, CallToolResultSchema)) as CallToolResult;
    expect(declined.isError).toBe(true);
    expect(errorOf(declined)).toMatchObject({ code: 'DECLINED', tool: 'wire.send', state: 'ready' });
    expect((declined.content[0] as { text: string }).text).toContain('a second person (bob) rejected the request: not today');
    expect((declined.content[0] as { text: string }).text).toMatch(/^DECLINED: "wire\.send" did not run/);
  });
});
