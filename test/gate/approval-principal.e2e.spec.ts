import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryFsmStateStore, McpWorkflowService } from '../../lib/index.js';
import { createMcpTestClient } from '../../lib/testing.js';
import { expenseModule, type ExpenseContext } from '../fixtures/expense-approval.app.js';
import { approvalModule, WireLog } from '../fixtures/wire-approval.app.js';

const errorOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string; state: string } | undefined;

/** Opens an app of `module` and connects clients of team `acme` to it. */
function appOf(module: (store: InMemoryFsmStateStore) => Parameters<typeof Test.createTestingModule>[0]['imports']) {
  const state = {
    app: undefined as unknown as INestApplication,
    store: undefined as unknown as InMemoryFsmStateStore,
    clients: [] as Client[],
  };
  beforeEach(async () => {
    state.store = new InMemoryFsmStateStore({ history: true });
    const moduleRef = await Test.createTestingModule({ imports: module(state.store) }).compile();
    state.app = moduleRef.createNestApplication();
    await state.app.init();
    state.clients = [];
  });
  afterEach(async () => {
    await Promise.all(state.clients.map((client) => client.close()));
    await state.app.close();
  });
  const connect = async (clientId: string, scopes: string[] = []) => {
    const client = await createMcpTestClient(state.app, { auth: { clientId, scopes, extra: { claims: { org: 'acme' } } } });
    state.clients.push(client);
    return async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  };
  return { state, connect };
}

describe('an approved request runs as the requester’s step: event.principal is who asked, event.approval who approved (XState)', () => {
  const { state, connect } = appOf((store) => [expenseModule(store)]);
  const opened = async (call: Awaited<ReturnType<typeof connect>>) =>
    ((await call('expense.open')).structuredContent as { expenseId: string }).expenseId;
  const claim = async (call: Awaited<ReturnType<typeof connect>>, expenseId: string) =>
    (await call('expense.status', { expenseId })).structuredContent as unknown as ExpenseContext & { state: string };

  it('records the submitter from event.principal and the approver from event.approval; the submitter may not pay, the approver may', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob', ['expenses:approve']);
    const expenseId = await opened(alice);
    const { requestId } = (await alice('expense.submit', { expenseId })).structuredContent as { requestId: string };
    expect((await bob('expense.approve_submission', { expenseId, requestId })).isError).toBeFalsy();
    const submitted = await claim(alice, expenseId);
    expect(submitted).toMatchObject({ state: 'submitted', submitter: 'alice', submissionApprovedBy: 'bob' });
    expect(Date.parse(submitted.submissionApprovedAt!)).toBeGreaterThan(0);
    // The guard sees the payer as event.principal: alice submitted, so she may not pay her own claim.
    const own = await alice('expense.pay', { expenseId });
    expect(errorOf(own)).toMatchObject({ code: 'GUARD_REJECTED', state: 'submitted' });
    expect((await bob('expense.pay', { expenseId })).isError).toBeFalsy();
    expect(await claim(bob, expenseId)).toMatchObject({ state: 'paid', submitter: 'alice', payer: 'bob' });
    const history = await state.store.history(`expense:${expenseId}`);
    expect(history.map(({ to, principal, approval }) => ({ to, principal, approval }))).toEqual([
      { to: 'draft', principal: 'alice', approval: undefined },
      { to: 'submitting', principal: 'alice', approval: undefined },
      { to: 'submitted', principal: 'bob', approval: { verdict: 'approved', requestedBy: 'alice', requestId } },
      { to: 'paid', principal: 'bob', approval: undefined },
    ]);
  });

  it('sends a rejection to the state the approval declares (rejectTo), a withdrawal back where the request found the claim', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob', ['expenses:approve']);
    const rejected = await opened(alice);
    const asked = (await alice('expense.submit', { expenseId: rejected })).structuredContent as { requestId: string };
    const no = await bob('expense.reject_submission', { expenseId: rejected, requestId: asked.requestId, reason: 'no receipt' });
    expect(no.structuredContent).toMatchObject({ status: 'rejected', state: 'returned' });
    expect(await claim(alice, rejected)).toMatchObject({ state: 'returned' });
    expect((await state.store.history(`expense:${rejected}`)).at(-1)).toMatchObject({
      from: 'submitting',
      to: 'returned',
      event: null,
      principal: 'bob',
      approval: { verdict: 'rejected', requestedBy: 'alice', reason: 'no receipt' },
    });
    const withdrawn = await opened(alice);
    const again = (await alice('expense.submit', { expenseId: withdrawn })).structuredContent as { requestId: string };
    expect(
      (await alice('expense.reject_submission', { expenseId: withdrawn, requestId: again.requestId })).structuredContent,
    ).toMatchObject({
      status: 'withdrawn',
      state: 'draft',
    });
  });

  it('gives the approver of the app’s own code (McpWorkflowService) as event.approval.by, the requester as event.principal', async () => {
    const alice = await connect('alice');
    const expenseId = await opened(alice);
    const { requestId } = (await alice('expense.submit', { expenseId })).structuredContent as { requestId: string };
    await state.app.get(McpWorkflowService).approve({ machine: 'expense', handle: expenseId }, { actor: 'back-office', requestId });
    expect(await claim(alice, expenseId)).toMatchObject({ state: 'submitted', submitter: 'alice', submissionApprovedBy: 'back-office' });
  });
});

describe('an approved request on the table engine: the handler and history see who asked and who approved', () => {
  const { state, connect } = appOf((store) => [approvalModule(store, { engine: 'table' })]);

  it('runs the approved handler with ctx.approval naming both; the decision’s history row names the approver, its note the requester', async () => {
    const alice = await connect('alice');
    const bob = await connect('bob', ['wires:approve']);
    const { wireId } = (await alice('wire.open')).structuredContent as { wireId: string };
    const { requestId } = (await alice('wire.send', { wireId, amount: 40 })).structuredContent as { requestId: string };
    expect((await bob('wire.approve', { wireId, requestId })).structuredContent).toEqual({ sent: 40, state: 'ready' });
    expect(state.app.get(WireLog).runs).toEqual([
      { tool: 'wire.send', amount: 40, approval: { requestedBy: 'alice', approvedBy: 'bob', requestedAt: expect.any(String), requestId } },
    ]);
    expect((await state.store.history(`wire:${wireId}`)).at(-1)).toMatchObject({
      from: 'awaiting',
      to: 'sent',
      tool: 'wire.approve',
      principal: 'bob',
      approval: { verdict: 'approved', requestedBy: 'alice', requestId },
    });
  });
});
