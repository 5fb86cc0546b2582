import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { WorkflowRefusal } from '../../lib/extend.js';
import { McpApprovalsService, McpWorkflowService } from '../../lib/index.js';
import { payoutBed, person, refusalOf, textOf, type PayoutAgent } from '../utils/payout-bed.js';
import { eventually } from '../utils/http-client.js';

const DECISION_TOOLS = ['payout.approve', 'payout.reject'];

/**
 * The adversary's attacks on who decides a waiting request, in process on SQLite (payout app:
 * team `org`, approvers `payouts:approve`): strangers to the team on every entry (decision tools,
 * McpApprovalsService, menus, tasks/cancel) get UNKNOWN_HANDLE and learn and leave nothing;
 * the requester never approves their own request, whatever session, token or spelling of their
 * principal; the withdrawal is the requester's alone.
 */
describe('attacks on who decides a waiting request (in process, SQLite)', () => {
  const { bed, stop, connect, waiting, records } = payoutBed();

  it('answers strangers (another org, no org, anonymous) UNKNOWN_HANDLE on every entry; nothing changes, nothing of the payout reaches them, nothing of them reaches its records', async () => {
    const alice = await connect('alice', [], 'acme');
    const { payoutId, requestId } = await waiting(alice, 50);
    const before = await records(payoutId);
    const eve = await connect('eve', ['payouts:approve'], 'globex');
    const nemo = await connect('nemo', ['payouts:approve']);
    const anonymous = await connect(undefined);
    for (const stranger of [eve, nemo]) {
      for (const [tool, args] of [
        ['payout.approve', { payoutId, requestId }],
        ['payout.approve', { payoutId, requestId, amount: 1 }],
        ['payout.reject', { payoutId, requestId, reason: 'mine now' }],
        ['payout.status', { payoutId }],
      ] as const) {
        const refused = await stranger.call(tool, args);
        expect(refusalOf(refused)).toMatchObject({ code: 'UNKNOWN_HANDLE' });
        expect(refusalOf(refused)?.state ?? null).toBeNull();
        expect(refusalOf(refused)?.waitingRequestId).toBeUndefined();
        expect(textOf(refused)).not.toMatch(/alice|awaiting|amount/);
      }
      // Nothing waits for them: no decision tools on their menu, nothing listed.
      const menu = await stranger.names();
      for (const tool of DECISION_TOOLS) expect(menu).not.toContain(tool);
    }
    // The reject tool lets any caller through to the gate (the requester withdraws without the grants): the gate refuses an anonymous one too.
    expect(refusalOf(await anonymous.call('payout.reject', { payoutId, requestId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    await expect(anonymous.call('payout.approve', { payoutId, requestId })).rejects.toThrow(McpError);
    expect(await anonymous.names()).not.toContain('payout.reject');
    const approvals = bed.app.get(McpApprovalsService);
    for (const who of [person('eve', ['payouts:approve'], 'globex'), person('nemo', ['payouts:approve'])]) {
      expect(await approvals.pending(who)).toEqual([]);
      for (const verdict of ['approve', 'reject'] as const) {
        const decided = approvals.decide(who, { machine: 'payout', handle: payoutId, requestId, verdict });
        await expect(decided).rejects.toBeInstanceOf(WorkflowRefusal);
        await expect(decided).rejects.toMatchObject({ data: { code: 'UNKNOWN_HANDLE' } });
      }
    }
    // The app's guard of the payout tool saw only what each stranger sent, never the stored request's arguments.
    const strangers = bed.log.guarded.filter(({ principal }) => principal !== 'alice');
    expect(strangers.length).toBeGreaterThan(0);
    for (const seen of strangers) expect(seen.args).not.toHaveProperty('amount', 50);
    expect(bed.log.runs).toEqual([]);
    await stop();
    const after = await records(payoutId);
    expect(after.row).toEqual(before.row);
    expect(after.history).toEqual(before.history);
    expect(after.attempts.map((attempt) => attempt.principal)).toEqual(before.attempts.map((attempt) => attempt.principal));
  });

  it('keeps a waiting task its requester’s: a stranger’s tasks/get and tasks/cancel find nothing, and the request still waits', async () => {
    const alice = await connect('alice', [], 'acme');
    const { payoutId } = (await alice.call('payout.open')).structuredContent as { payoutId: string };
    const params = { name: 'payout.pay', arguments: { payoutId, amount: 70 }, task: {} };
    const { task } = await alice.client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
    await eventually(async () => (await records(payoutId)).row?.waiting?.taskId === task.taskId, 5_000);
    const eve = await connect('eve', ['payouts:approve'], 'globex');
    await expect(eve.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/not found/);
    await expect(eve.client.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/not found/);
    expect((await records(payoutId)).row).toMatchObject({ state: 'awaiting', waiting: { taskId: task.taskId } });
    expect(await alice.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
  });

  it('refuses SELF_APPROVAL to the requester on a second session, with another token’s scopes and claims, and under any spelling of her principal', async () => {
    const alice = await connect('alice', ['payouts:approve'], 'acme');
    const { payoutId, requestId } = await waiting(alice, 50);
    const spellings = ['alice', 'alice ', ' alice', 'Alice', 'ALICE', 'alice\t', 'alice\u200b', '\u{FF41}lice', 'ali\u00ADce'];
    const approve = async (agent: PayoutAgent) => refusalOf(await agent.call('payout.approve', { payoutId, requestId }))?.code;
    for (const spelling of spellings) {
      expect([spelling, await approve(await connect(spelling, ['payouts:approve'], 'acme'))]).toEqual([spelling, 'SELF_APPROVAL']);
    }
    // Another token of the same principal: other scopes, another client, another issuer's claims.
    const otherToken = await connect('alice', ['payouts:approve', 'payouts:admin'], 'acme', {
      client_id: 'back-office',
      azp: 'back-office',
    });
    expect(await approve(otherToken)).toBe('SELF_APPROVAL');
    const approvals = bed.app.get(McpApprovalsService);
    const workflows = bed.app.get(McpWorkflowService);
    const ref = { machine: 'payout', handle: payoutId };
    for (const spelling of ['Alice ', 'alice\u200b']) {
      await expect(
        approvals.decide(person(spelling, ['payouts:approve'], 'acme'), { ...ref, requestId, verdict: 'approve' }),
      ).rejects.toMatchObject({
        data: { code: 'SELF_APPROVAL' },
      });
      await expect(workflows.approve(ref, { actor: spelling, requestId })).rejects.toMatchObject({ data: { code: 'SELF_APPROVAL' } });
    }
    // Nobody of those spellings is shown the approve tool or told they may decide it.
    const alike = await connect('ALICE ', ['payouts:approve'], 'acme');
    expect(await alike.names()).not.toContain('payout.approve');
    const listed = await approvals.pending(person('ALICE ', ['payouts:approve'], 'acme'));
    expect(listed.find(({ handle }) => handle === payoutId)).toMatchObject({ mayDecide: false, asked: false });
    expect(bed.log.runs).toEqual([]);
    expect((await records(payoutId)).row).toMatchObject({ state: 'awaiting', waiting: { requestId, requestedBy: 'alice' } });
    // A second person, whose principal only looks like hers, approves.
    const alicia = await connect('alicia', ['payouts:approve'], 'acme');
    expect((await alicia.call('payout.approve', { payoutId, requestId })).structuredContent).toEqual({ paid: 50 });
  });

  it('keeps the withdrawal the requester’s alone: a teammate without the grants, or a look-alike principal, is NOT_APPROVER on every entry and is not shown the tool', async () => {
    const alice = await connect('alice', [], 'acme');
    const { payoutId, requestId } = await waiting(alice, 50);
    const bob = await connect('bob', [], 'acme');
    expect(refusalOf(await bob.call('payout.status', { payoutId }))).toBeUndefined();
    // Bob follows the payout now: the reject tool is still not on his menu, nor the approve tool.
    const menu = await bob.names();
    for (const tool of DECISION_TOOLS) expect(menu).not.toContain(tool);
    expect(refusalOf(await bob.call('payout.reject', { payoutId, requestId }))).toMatchObject({ code: 'NOT_APPROVER', state: 'awaiting' });
    await expect(bob.call('payout.approve', { payoutId, requestId })).rejects.toThrow(/payouts:approve/);
    const lookAlike = await connect('alice ', [], 'acme');
    expect(refusalOf(await lookAlike.call('payout.reject', { payoutId, requestId }))).toMatchObject({ code: 'NOT_APPROVER' });
    const approvals = bed.app.get(McpApprovalsService);
    for (const who of [person('bob', [], 'acme'), person('Alice', [], 'acme')]) {
      await expect(approvals.decide(who, { machine: 'payout', handle: payoutId, requestId, verdict: 'reject' })).rejects.toMatchObject({
        data: { code: 'NOT_APPROVER' },
      });
    }
    expect((await records(payoutId)).row).toMatchObject({ state: 'awaiting', waiting: { requestId } });
    // The requester herself withdraws.
    const withdrawn = await alice.call('payout.reject', { payoutId, requestId });
    expect(withdrawn.structuredContent).toMatchObject({ status: 'withdrawn', state: 'ready', requestId });
    expect((await records(payoutId)).history.at(-1)).toMatchObject({ principal: 'alice', approval: { verdict: 'withdrawn', requestId } });
  });
});
