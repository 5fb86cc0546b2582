import { Logger } from '@nestjs/common';
import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { McpApprovalsService, McpWorkflowService } from '../../lib/index.js';
import { EXPIRING_AMOUNT } from '../fixtures/payout-approval.app.js';
import { eventually } from '../utils/http-client.js';
import { payoutBed, person, refusalOf, textOf } from '../utils/payout-bed.js';
import { RecordingLogger } from '../utils/recording-logger.js';

/**
 * The adversary's attacks on what a decision decides, in process on SQLite (payout app): a
 * `requestId` that is not the one waiting now (guessed, cut, padded, of another payout, of a
 * request withdrawn, rejected, approved or expired) decides nothing; one that is no id at all is
 * refused naming it; an approval runs the stored arguments whatever the decision call sends, and
 * never any other, even when the gate could not read the request before the call.
 */
describe('attacks on what a decision decides (in process, SQLite)', () => {
  const { bed, connect, waiting, records } = payoutBed();

  it('decides nothing for a requestId that is not the one waiting: STALE_REQUEST naming the one that waits, on the tools and McpApprovalsService', async () => {
    const alice = await connect('alice', [], 'acme');
    const carol = await connect('carol', ['payouts:approve'], 'acme');
    const { payoutId, requestId } = await waiting(alice, 50);
    const other = await waiting(alice, 60);
    const before = await records(payoutId);
    const flipped = requestId.replace(/[a-z]/, (c) => c.toUpperCase()).replace(/[A-Z]/, (c) => c.toLowerCase());
    const wrong = [
      requestId.slice(0, -1),
      requestId.slice(1),
      `${requestId}x`,
      ` ${requestId}`,
      `${requestId} `,
      `${requestId}\u200b`,
      requestId.toUpperCase(),
      requestId.toLowerCase(),
      flipped,
      'A'.repeat(24),
      'r04-AAAAAAAAAAAAAAAAAAAAAAAA',
      other.requestId,
    ].filter((id) => id !== requestId);
    const approvals = bed.app.get(McpApprovalsService);
    for (const id of wrong) {
      for (const tool of ['payout.approve', 'payout.reject']) {
        const refused = await carol.call(tool, { payoutId, requestId: id });
        expect([id, refusalOf(refused)]).toEqual([id, expect.objectContaining({ code: 'STALE_REQUEST', waitingRequestId: requestId })]);
      }
      const decided = approvals.decide(person('carol', ['payouts:approve'], 'acme'), {
        machine: 'payout',
        handle: payoutId,
        requestId: id,
        verdict: 'approve',
      });
      await expect(decided).rejects.toMatchObject({ data: { code: 'STALE_REQUEST', waitingRequestId: requestId } });
    }
    expect(bed.log.runs).toEqual([]);
    const after = await records(payoutId);
    expect(after.row).toEqual(before.row);
    expect(after.history).toEqual(before.history);
    expect((await records(other.payoutId)).row).toMatchObject({ state: 'awaiting', waiting: { requestId: other.requestId } });
  });

  it('refuses a requestId that is no id (empty, too long, a number, null, an array, an object, missing), and a list limit that is no count, naming the argument; nothing changes', async () => {
    const alice = await connect('alice', [], 'acme');
    const carol = await connect('carol', ['payouts:approve'], 'acme');
    const { payoutId, requestId } = await waiting(alice, 50);
    const before = await records(payoutId);
    const malformed: unknown[] = ['', 'x'.repeat(65), 123, null, true, [requestId], { requestId }];
    for (const tool of ['payout.approve', 'payout.reject']) {
      for (const id of malformed) {
        const refused = await carol.call(tool, { payoutId, requestId: id });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(new RegExp(`^Invalid arguments for "${tool.replace('.', '\\.')}": requestId`));
      }
      const missing = await carol.call(tool, { payoutId });
      expect(textOf(missing)).toMatch(/requestId/);
    }
    const approvals = bed.app.get(McpApprovalsService);
    const workflows = bed.app.get(McpWorkflowService);
    const ref = { machine: 'payout', handle: payoutId };
    for (const id of malformed) {
      const asPerson = approvals.decide(person('carol', ['payouts:approve'], 'acme'), {
        ...ref,
        requestId: id as string,
        verdict: 'approve',
      });
      await expect(asPerson).rejects.toThrow(/requestId must be/);
      await expect(workflows.approve(ref, { actor: 'carol', requestId: id as string })).rejects.toThrow(/requestId must be/);
      await expect(workflows.reject(ref, { actor: 'carol', requestId: id as string })).rejects.toThrow(/requestId must be/);
    }
    for (const limit of [0, -1, 2.5, Number.NaN, Infinity, '10' as unknown as number]) {
      await expect(approvals.pending(person('carol', ['payouts:approve'], 'acme'), { limit })).rejects.toThrow(
        /^McpApprovalsService\.pending: limit must be a whole number/,
      );
    }
    expect(bed.log.runs).toEqual([]);
    expect((await records(payoutId)).row).toEqual(before.row);
    expect((await records(payoutId)).history).toEqual(before.history);
  });

  it('never decides a request again once it was withdrawn, rejected, approved or expired, nor the one asked after it', async () => {
    const alice = await connect('alice', [], 'acme');
    const carol = await connect('carol', ['payouts:approve'], 'acme');
    const workflows = bed.app.get(McpWorkflowService);
    const withdrawn = await waiting(alice, 50);
    expect((await alice.call('payout.reject', withdrawn)).structuredContent).toMatchObject({ status: 'withdrawn' });
    const rejected = await waiting(alice, 50);
    expect((await carol.call('payout.reject', { ...rejected, reason: 'no' })).structuredContent).toMatchObject({ status: 'rejected' });
    const approved = await waiting(alice, 50);
    expect((await carol.call('payout.approve', approved)).structuredContent).toEqual({ paid: 50 });
    const expired = await waiting(alice, EXPIRING_AMOUNT);
    await eventually(async () => (await records(expired.payoutId)).row?.state === 'ready', 5_000);
    expect((await records(expired.payoutId)).history.at(-1)).toMatchObject({ approval: { verdict: 'rejected', reason: 'expired' } });
    for (const gone of [withdrawn, rejected, expired]) {
      // Asked again: the old id still decides nothing, on any entry, and the new request waits on.
      const next = (await alice.call('payout.pay', { payoutId: gone.payoutId, amount: 40 })).structuredContent as { requestId: string };
      for (const tool of ['payout.approve', 'payout.reject']) {
        expect(refusalOf(await carol.call(tool, gone))).toMatchObject({ code: 'STALE_REQUEST', waitingRequestId: next.requestId });
      }
      const ref = { machine: 'payout', handle: gone.payoutId };
      await expect(workflows.approve(ref, { actor: 'carol', requestId: gone.requestId })).rejects.toMatchObject({
        data: { code: 'STALE_REQUEST', waitingRequestId: next.requestId },
      });
      expect((await records(gone.payoutId)).row).toMatchObject({
        state: 'awaiting',
        waiting: { requestId: next.requestId, input: { amount: 40 } },
      });
    }
    const replayed = await carol.call('payout.approve', approved);
    expect(refusalOf(replayed)).toMatchObject({ code: 'STALE_REQUEST', state: 'paid' });
    expect(bed.log.runs.map((run) => run.amount)).toEqual([50]);
  });

  it('runs an approval with the stored arguments alone: whatever the approve call adds, on the tool, McpApprovalsService and McpWorkflowService', async () => {
    const alice = await connect('alice', [], 'acme');
    const carol = await connect('carol', ['payouts:approve'], 'acme');
    const byTool = await waiting(alice, 50);
    const approved = await carol.call('payout.approve', { ...byTool, amount: 9_999, payoutIdX: 'x', requestIdX: 'y' });
    expect(approved.structuredContent).toEqual({ paid: 50 });
    const byPerson = await waiting(alice, 60);
    const asPerson = await bed.app.get(McpApprovalsService).decide(person('carol', ['payouts:approve'], 'acme'), {
      machine: 'payout',
      handle: byPerson.payoutId,
      requestId: byPerson.requestId,
      verdict: 'approve',
      ...({ amount: 9_999 } as object),
    });
    expect(asPerson.result.structuredContent).toEqual({ paid: 60 });
    const byApp = await waiting(alice, 70);
    const asApp = await bed.app
      .get(McpWorkflowService)
      .approve(
        { machine: 'payout', handle: byApp.payoutId },
        { actor: 'carol', requestId: byApp.requestId, ...({ amount: 9_999 } as object) },
      );
    expect(asApp.result.structuredContent).toEqual({ paid: 70 });
    expect(bed.log.runs.map(({ amount, approval }) => [amount, approval?.requestId])).toEqual([
      [50, byTool.requestId],
      [60, byPerson.requestId],
      [70, byApp.requestId],
    ]);
  });

  it('runs nothing when the request could not be read before the approval: refused STATE_UNAVAILABLE, then approved with the stored arguments', async () => {
    const alice = await connect('alice', [], 'acme');
    const carol = await connect('carol', ['payouts:approve'], 'acme');
    const { payoutId, requestId } = await waiting(alice, 50);
    const before = await records(payoutId);
    const logger = new RecordingLogger();
    Logger.overrideLogger(logger);
    bed.store.failLoads = 1;
    const refused = await carol.call('payout.approve', { payoutId, requestId }).finally(() => Logger.overrideLogger(false as never));
    expect(logger.matching('error', new RegExp(`could not read request "${requestId}" before the call began`))).toHaveLength(1);
    expect(refusalOf(refused)).toMatchObject({ code: 'STATE_UNAVAILABLE' });
    expect(bed.log.runs).toEqual([]);
    expect((await records(payoutId)).row).toEqual(before.row);
    // The service reads which decision tool to use first (that read failing is harmless), then the request.
    Logger.overrideLogger(logger);
    bed.store.failLoads = 2;
    const asApp = bed.app.get(McpWorkflowService).approve({ machine: 'payout', handle: payoutId }, { actor: 'carol', requestId });
    await expect(asApp.finally(() => Logger.overrideLogger(false as never))).rejects.toMatchObject({ data: { code: 'STATE_UNAVAILABLE' } });
    expect(bed.log.runs).toEqual([]);
    expect((await carol.call('payout.approve', { payoutId, requestId })).structuredContent).toEqual({ paid: 50 });
    expect(bed.log.runs.map((run) => run.amount)).toEqual([50]);
  });

  it('ends the task of a waiting payout as its decision says: the payout’s result once approved, DECLINED once rejected or withdrawn by the requester', async () => {
    const alice = await connect('alice', [], 'acme');
    const carol = await connect('carol', ['payouts:approve'], 'acme');
    const asTask = async () => {
      const { payoutId } = (await alice.call('payout.open')).structuredContent as { payoutId: string };
      const params = { name: 'payout.pay', arguments: { payoutId, amount: 70 }, task: {} };
      const { task } = await alice.client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
      await eventually(async () => (await records(payoutId)).row?.waiting?.taskId === task.taskId, 5_000);
      return { payoutId, requestId: (await records(payoutId)).row!.waiting!.requestId, taskId: task.taskId };
    };
    const ended = async (taskId: string) => {
      await eventually(async () => (await alice.client.experimental.tasks.getTask(taskId)).status === 'completed', 5_000);
      return (await alice.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
    };
    const approved = await asTask();
    const rejected = await asTask();
    const withdrawn = await asTask();
    await carol.call('payout.approve', { payoutId: approved.payoutId, requestId: approved.requestId });
    await carol.call('payout.reject', { payoutId: rejected.payoutId, requestId: rejected.requestId, reason: 'no' });
    const own = await alice.call('payout.reject', { payoutId: withdrawn.payoutId, requestId: withdrawn.requestId });
    expect(own.structuredContent).toMatchObject({ status: 'withdrawn' });
    expect((await ended(approved.taskId)).structuredContent).toEqual({ paid: 70 });
    expect(refusalOf(await ended(rejected.taskId))).toMatchObject({ code: 'DECLINED', tool: 'payout.pay', state: 'ready' });
    const declined = await ended(withdrawn.taskId);
    expect(declined.isError).toBe(true);
    expect(refusalOf(declined)).toMatchObject({ code: 'DECLINED', tool: 'payout.pay', state: 'ready' });
    expect(textOf(declined)).toContain('the person who asked (alice) withdrew the request');
  });
});
