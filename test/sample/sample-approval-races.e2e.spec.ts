import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { capturedBy, jwtSamples, refunds, refusalOf, statusOf, type SampleCaller } from '../utils/approval-sample.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { eventually } from '../utils/http-client.js';

/** How long a refund request waits before it expires (the sample's `SAMPLE_APPROVAL_TTL_MS`). */
const TTL_MS = 2_000;
const PAYMENTS = 12;
const EXPIRY_ACTOR = 'deadline:mcp.approval-expiry.payment.refund';

/** How one racer's call ended: it decided the request, or lost (refused, or the cancel answered an error). */
type Raced = { racer: string; won: boolean; code?: string };

const decided = (racer: string, result: CallToolResult): Raced => ({ racer, won: !result.isError, code: refusalOf(result)?.code });

/**
 * approve ‖ reject ‖ withdraw ‖ tasks/cancel ‖ expiry on one waiting refund, on two sample
 * processes sharing the database: exactly one decision is stored, the ledger agrees with it,
 * the refund task ends as the decision says, and every other racer changed nothing.
 */
describeNetworkedTargets('four-eyes races on the sample')('four-eyes races on two sample processes sharing $name', ({ url, options }) => {
  const { connect, records } = jwtSamples(
    () => url!,
    options,
    { SAMPLE_APPROVAL_TTL_MS: String(TTL_MS), SAMPLE_HANDLER_DELAY_MS: '30' },
    { stateless: false },
  );

  it('decides each waiting refund exactly once, whoever wins; ledger, history and task agree', async () => {
    const acme = `acme-${randomUUID().slice(0, 8)}`;
    // A requester of her own per run: her tasks never crowd another suite's task list of the same principal.
    const requester = `alice-${randomUUID().slice(0, 8)}`;
    const alice = await connect('stateful', { sub: requester, org: acme, scope: 'payments:refund' }, 0);
    const aliceThere = await connect('stateful', { sub: requester, org: acme, scope: 'payments:refund' }, 1);
    const carol = await connect('stateful', { sub: 'carol', org: acme, scope: 'payments:approve' }, 0);
    const dave = await connect('stateful', { sub: 'dave', org: acme, scope: 'payments:approve' }, 1);
    const captured: string[] = [];
    for (let i = 0; i < PAYMENTS; i++) captured.push(await capturedBy(alice, 300));
    const asked = await Promise.all(
      captured.map(async (paymentId) => {
        const params = { name: 'payment.refund', arguments: { paymentId, amount: 150 }, task: {} };
        const { task } = await alice.client!.request({ method: 'tools/call', params }, CreateTaskResultSchema);
        return { paymentId, taskId: task.taskId, at: Date.now() };
      }),
    );
    const waiting = await Promise.all(
      asked.map(async (each) => {
        await eventually(async () => (await statusOf(alice, each.paymentId)).state === 'refund_pending', 5_000);
        return { ...each, requestId: (await statusOf(alice, each.paymentId)).pendingRefund!.requestId };
      }),
    );
    // Each payment's racers start at another moment, from before its expiry is due to a poll after it.
    const races = await Promise.all(
      waiting.map(async ({ paymentId, taskId, requestId, at }, index) => {
        await sleep(Math.max(0, at + TTL_MS - 500 + index * 150 - Date.now()));
        const args = { paymentId, requestId };
        const racers = [
          () => carol.call('payment.approve_refund', args).then((result) => decided('approve', result)),
          () => dave.call('payment.reject_refund', { ...args, reason: 'no' }).then((result) => decided('reject', result)),
          () => aliceThere.call('payment.reject_refund', args).then((result) => decided('withdraw', result)),
          () => cancel(alice, taskId),
        ];
        // Each racer in turn starts a moment before the others, so each may win.
        const ahead = racers[index % racers.length]();
        await sleep(20);
        const raced = await Promise.all([ahead, ...racers.filter((_, at) => at !== index % racers.length).map((racer) => racer())]);
        return { paymentId, taskId, requestId, raced };
      }),
    );
    for (const { paymentId, taskId, requestId, raced } of races) {
      await eventually(async () => (await statusOf(alice, paymentId)).state !== 'refund_pending', 10_000);
      const { history } = await records(paymentId);
      const decisions = history.filter((row) => row.approval && row.from === 'refund_pending');
      expect(decisions).toHaveLength(1);
      const [decision] = decisions;
      expect(decision.approval).toMatchObject({ requestId, requestedBy: requester });
      const winners = raced.filter(({ won }) => won).map(({ racer }) => racer);
      // The losers changed nothing: they were BUSY while a winner held the payment, or found the request decided.
      for (const { code } of raced.filter(({ won }) => !won)) expect(['BUSY', 'STALE_REQUEST', 'ENDED']).toContain(code);
      const status = await statusOf(alice, paymentId);
      await eventually(
        async () => ['completed', 'cancelled'].includes((await alice.client!.experimental.tasks.getTask(taskId)).status),
        10_000,
      );
      const task = await alice.client!.experimental.tasks.getTask(taskId);
      const verdict = decision.approval!.verdict;
      const by = decision.principal;
      expect([paymentId, verdict, by, winners]).toEqual([paymentId, verdict, by, expectedWinners(verdict, by, task.status)]);
      if (verdict === 'approved') {
        expect([status.state, refunds(status)]).toEqual(['partially_refunded', [{ kind: 'refund', amount: 150 }]]);
        expect((await result(alice, taskId)).structuredContent).toMatchObject({ refunded: 150, approvedBy: 'carol' });
      } else {
        expect([status.state, refunds(status)]).toEqual(['captured', []]);
        if (task.status === 'completed') expect(refusalOf(await result(alice, taskId))).toMatchObject({ code: 'DECLINED' });
      }
      expect(task.status).toBe(verdict === 'withdrawn' && winners.includes('cancel') ? 'cancelled' : 'completed');
      if (by === EXPIRY_ACTOR) expect(decision.approval).toMatchObject({ verdict: 'rejected', reason: 'expired' });
    }
  });
});

/** Alice cancels her refund task: it won when the task is cancelled; `ENDED` when a decision came first (the cancel says so). */
async function cancel(alice: SampleCaller, taskId: string): Promise<Raced> {
  try {
    const task = await alice.client!.experimental.tasks.cancelTask(taskId);
    return task.status === 'cancelled' ? { racer: 'cancel', won: true } : { racer: 'cancel', won: false, code: `ANSWERED_${task.status}` };
  } catch (error) {
    expect(String(error)).toMatch(/decided first|ended first|terminal status|being decided/);
    return { racer: 'cancel', won: false, code: 'ENDED' };
  }
}

/** The racers that must have won for a decision `verdict` by `by`, the task ending `taskStatus`: one, or none when the expiry won. */
function expectedWinners(verdict: string, by: string | null, taskStatus: string): string[] {
  if (by === EXPIRY_ACTOR) return [];
  if (verdict === 'approved') return ['approve'];
  if (verdict === 'rejected') return ['reject'];
  return [taskStatus === 'cancelled' ? 'cancel' : 'withdraw'];
}

async function result(alice: SampleCaller, taskId: string): Promise<CallToolResult> {
  return (await alice.client!.experimental.tasks.getTaskResult(taskId, CallToolResultSchema)) as CallToolResult;
}
