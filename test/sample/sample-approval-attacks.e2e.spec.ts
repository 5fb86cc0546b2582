import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import {
  askRefund,
  capturedBy,
  jwtSamples,
  pendingOf,
  refunds,
  refusalOf,
  statusOf,
  textOf,
  type SampleEra,
} from '../utils/approval-sample.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { eventually } from '../utils/http-client.js';

const ERAS: SampleEra[] = ['stateful', 'stateless', 'modern'];
const DECISIONS = ['payment.approve_refund', 'payment.reject_refund'];

/**
 * The adversary's attacks on the sample's four-eyes control (SAMPLE_AUTH=jwt), on every era a
 * decision can come by: a 2025-11-25 session, stateless HTTP, and 2026-07-28 without a session,
 * on sample processes sharing the database. Strangers learn and leave nothing; the requester
 * never approves under any session, token or spelling; a decision names its request and runs
 * the stored refund whatever it sends; a task-augmented decision and someone else's task
 * cancel change nothing.
 */
describeNetworkedTargets('attacks on the sample’s four eyes')(
  'attacks on the approval control, sample processes sharing $name',
  ({ url, options }) => {
    const { connect, records } = jwtSamples(() => url!, options);
    // One org per test, so payments of earlier runs in the same database never share a team with it.
    let acme: string;
    let globex: string;

    beforeEach(() => {
      acme = `acme-${randomUUID().slice(0, 8)}`;
      globex = `globex-${randomUUID().slice(0, 8)}`;
    });

    it('answers approvers of another org, of none, of the org padded or recased UNKNOWN_HANDLE on every era, shows and leaves them nothing', async () => {
      const alice = await connect('stateful', { sub: 'alice', org: acme, scope: 'payments:refund' });
      const paymentId = await capturedBy(alice, 500);
      const requestId = await askRefund(alice, paymentId, 300);
      const before = await records(paymentId);
      for (const era of ERAS) {
        // Another org, none, and the payment's org padded or recased (exact on MariaDB too).
        for (const claims of [
          { sub: 'eve', org: globex },
          { sub: 'nemo' },
          { sub: 'pat', org: `${acme} ` },
          { sub: 'cal', org: acme.toUpperCase() },
        ]) {
          const stranger = await connect(era, { ...claims, scope: 'payments:approve payments:refund' });
          for (const tool of DECISIONS) {
            const refused = await stranger.call(tool, { paymentId, requestId, amount: 1, reason: 'mine now' });
            expect([era, claims.sub, tool, refusalOf(refused)?.code]).toEqual([era, claims.sub, tool, 'UNKNOWN_HANDLE']);
            expect(refusalOf(refused)?.waitingRequestId).toBeUndefined();
            expect(textOf(refused)).not.toMatch(/alice|refund_pending|amount/);
          }
          expect((await pendingOf(stranger)).map((each) => each.paymentId)).not.toContain(paymentId);
          if (era === 'stateful') {
            // A session's menu shows the decision tools only while something waits that its caller may decide.
            const menu = await stranger.names();
            for (const tool of DECISIONS) expect(menu).not.toContain(tool);
          }
        }
      }
      // A teammate's refusal is recorded; once it is, no stranger's ever was.
      const bob = await connect('stateful', { sub: 'bob', org: acme, scope: 'payments:refund' });
      expect(refusalOf(await bob.call('payment.reject_refund', { paymentId, requestId }))).toMatchObject({ code: 'NOT_APPROVER' });
      await eventually(async () => (await records(paymentId)).attempts.some((attempt) => attempt.principal === 'bob'), 5_000);
      const after = await records(paymentId);
      expect(after.attempts.map((attempt) => attempt.principal)).toEqual(['bob']);
      expect(after.history).toEqual(before.history);
      expect(after.row).toEqual(before.row);
      expect(refunds(await statusOf(alice, paymentId))).toEqual([]);
    });

    it('refuses the requester SELF_APPROVAL on every era: another session, another token and client id, a padded or recased sub', async () => {
      const alice = await connect('stateful', { sub: 'alice', org: acme, scope: 'payments:refund payments:approve' });
      const paymentId = await capturedBy(alice, 500);
      const requestId = await askRefund(alice, paymentId, 300);
      const herselves: [SampleEra, Record<string, unknown>][] = [
        ['stateful', { sub: 'alice' }],
        ['stateful', { sub: 'alice', client_id: 'back-office', azp: 'back-office' }],
        ['stateless', { sub: 'alice' }],
        ['modern', { sub: 'alice' }],
        ['stateful', { sub: 'alice ' }],
        ['stateless', { sub: 'Alice' }],
        ['modern', { sub: ' ALICE\u200b' }],
      ];
      for (const [era, claims] of herselves) {
        const self = await connect(era, { ...claims, org: acme, scope: 'payments:approve' }, 1);
        const refused = await self.call('payment.approve_refund', { paymentId, requestId });
        expect([era, claims, refusalOf(refused)?.code]).toEqual([era, claims, 'SELF_APPROVAL']);
      }
      const after = await statusOf(alice, paymentId);
      expect(after).toMatchObject({ state: 'refund_pending', pendingRefund: { requestId, requestedBy: 'alice' } });
      expect(refunds(after)).toEqual([]);
      const carol = await connect('stateless', { sub: 'carol', org: acme, scope: 'payments:approve' });
      expect((await carol.call('payment.approve_refund', { paymentId, requestId })).structuredContent).toMatchObject({ refunded: 300 });
    });

    it('decides only the request named, on every era: a swapped, replayed, cut, padded or recased requestId is STALE_REQUEST; a non-string one is refused naming it', async () => {
      for (const era of ERAS) {
        const alice = await connect(era, { sub: 'alice', org: acme, scope: 'payments:refund' });
        const carol = await connect(era, { sub: 'carol', org: acme, scope: 'payments:approve' });
        const paymentId = await capturedBy(alice, 2_000);
        // Swap: carol read 120, alice withdrew it and asked 1,000.
        const read = await askRefund(alice, paymentId, 120);
        expect((await pendingOf(carol)).find((each) => each.paymentId === paymentId)).toMatchObject({ requestId: read, amount: 120 });
        expect((await alice.call('payment.reject_refund', { paymentId, requestId: read })).structuredContent).toMatchObject({
          status: 'withdrawn',
        });
        const now = await askRefund(alice, paymentId, 1_000);
        for (const named of [read, now.slice(0, -1), `${now} `, now.toLowerCase() === now ? now.toUpperCase() : now.toLowerCase()]) {
          const refused = await carol.call('payment.approve_refund', { paymentId, requestId: named });
          expect([era, named, refusalOf(refused)]).toEqual([
            era,
            named,
            expect.objectContaining({ code: 'STALE_REQUEST', waitingRequestId: now }),
          ]);
        }
        for (const named of [['x'], 42, '']) {
          const refused = await carol.call('payment.approve_refund', { paymentId, requestId: named });
          expect([era, refused.isError, textOf(refused)]).toEqual([era, true, expect.stringMatching(/requestId/)]);
        }
        // Replay: carol approves the 1,000 once; alice asks the rest, and the same call refunds nothing more.
        expect((await carol.call('payment.approve_refund', { paymentId, requestId: now })).structuredContent).toMatchObject({
          refunded: 1_000,
        });
        const rest = await askRefund(alice, paymentId, 1_000);
        expect(refusalOf(await carol.call('payment.approve_refund', { paymentId, requestId: now }))).toMatchObject({
          code: 'STALE_REQUEST',
          waitingRequestId: rest,
        });
        const after = await statusOf(alice, paymentId);
        expect([era, after.state, refunds(after)]).toEqual([era, 'refund_pending', [{ kind: 'refund', amount: 1_000 }]]);
      }
    });

    it('refunds what was asked, whatever the approve call sends, on every era', async () => {
      const alice = await connect('stateful', { sub: 'alice', org: acme, scope: 'payments:refund' });
      for (const era of ERAS) {
        const carol = await connect(era, { sub: 'carol', org: acme, scope: 'payments:approve' });
        const paymentId = await capturedBy(alice, 2_000);
        const requestId = await askRefund(alice, paymentId, 150);
        const approved = await carol.call('payment.approve_refund', { paymentId, requestId, amount: 1_999, reason: 'more' });
        expect([era, approved.structuredContent]).toEqual([
          era,
          expect.objectContaining({ refunded: 150, requestedBy: 'alice', approvedBy: 'carol' }),
        ]);
        const after = await statusOf(alice, paymentId);
        expect([era, after.refundable, refunds(after)]).toEqual([era, 1_850, [{ kind: 'refund', amount: 150 }]]);
      }
    });

    it('keeps the decision tools and the task closed to anyone but who they are for: a teammate without the scope, a task-augmented decision, another person’s tasks/cancel', async () => {
      // A requester of her own: her task never crowds another suite's task list of the same principal.
      const alice = await connect('stateful', { sub: `alice-${randomUUID().slice(0, 8)}`, org: acme, scope: 'payments:refund' });
      const paymentId = await capturedBy(alice, 500);
      const { task } = await alice.client!.request(
        { method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId, amount: 200 }, task: {} } },
        CreateTaskResultSchema,
      );
      await eventually(async () => (await statusOf(alice, paymentId)).state === 'refund_pending', 5_000);
      const requestId = (await statusOf(alice, paymentId)).pendingRefund!.requestId;
      for (const era of ERAS) {
        const bob = await connect(era, { sub: 'bob', org: acme, scope: 'payments:refund' });
        expect([era, refusalOf(await bob.call('payment.reject_refund', { paymentId, requestId }))?.code]).toEqual([era, 'NOT_APPROVER']);
        await expect(bob.call('payment.approve_refund', { paymentId, requestId })).rejects.toThrow(/payments:approve|403|insufficient/i);
        if (era === 'stateful') {
          expect(refusalOf(await bob.call('payment.status', { paymentId }))).toBeUndefined();
          const menu = await bob.names();
          for (const tool of DECISIONS) expect(menu).not.toContain(tool);
        }
      }
      const carol = await connect('stateful', { sub: 'carol', org: acme, scope: 'payments:approve' });
      const asTask = carol.client!.request(
        { method: 'tools/call', params: { name: 'payment.approve_refund', arguments: { paymentId, requestId }, task: {} } },
        CreateTaskResultSchema,
      );
      await expect(asTask).rejects.toThrow(/does not accept|-32601|task/i);
      for (const [sub, org] of [
        ['carol', acme],
        ['eve', globex],
      ]) {
        const other = await connect('stateful', { sub, org, scope: 'payments:approve payments:refund' });
        await expect(other.client!.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/not found/);
      }
      const after = await statusOf(alice, paymentId);
      expect(after).toMatchObject({ state: 'refund_pending', pendingRefund: { requestId } });
      expect(refunds(after)).toEqual([]);
      expect(await alice.client!.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'working' });
    });
  },
);
