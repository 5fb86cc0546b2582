import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { randomUUID } from 'node:crypto';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { eventually } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';
import { TestIssuer } from '../utils/test-issuer.js';

type Status = {
  state: string;
  refundable: number;
  ledger: { kind: string; amount: number }[];
  pendingRefund?: { requestId: string; amount: number; requestedBy: string | null; requestedAt: string };
};
type Pending = { paymentId: string; requestId: string; amount: number; requestedBy: string | null; requestedAt: string };
type Refusal = { code: string; state?: string; waitingRequestId?: string };

const refusalOf = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as Refusal | undefined;
const textOf = (result: CallToolResult) => (result.content[0] as { text: string }).text;

/**
 * Four eyes as a control (design §10 "Added in 0.5"), with SAMPLE_AUTH=jwt on two sample processes
 * sharing the database: a decision names the request it decides (STALE_REQUEST otherwise), deciders
 * act inside the payment's team, approvers find what waits, the requester withdraws without the
 * approvers' scope, and a cancelled task's request never runs.
 */
describeNetworkedTargets('the approval control on sample processes')(
  'four eyes as a control on two sample processes sharing $name',
  ({ url }) => {
    let issuer: TestIssuer;
    let samples: SampleProcess[];
    let clients: BearerClient[];
    // One org per run, so payments of earlier runs in the same database never share a team with this one.
    const acme = `acme-${randomUUID().slice(0, 8)}`;
    const globex = `globex-${randomUUID().slice(0, 8)}`;

    /** A client of `sub` (team `org`) holding `scope`, on sample process `on`. */
    const connect = async (sub: string, org: string, scope: string, on = 0) => {
      const token = await issuer.sign({ sub, org, scope }, { audience: samples[on].url.href });
      const client = await connectBearerClient(samples[on].url, token);
      clients.push(client);
      return client;
    };
    const status = async (agent: BearerClient, paymentId: string) => {
      const read = await agent.call('payment.status', { paymentId });
      expect(read.isError).toBeFalsy();
      return read.structuredContent as Status;
    };
    const refunds = (read: Status) => read.ledger.filter((entry) => entry.kind === 'refund');
    /** A payment of `amount` EUR authorized and captured by `agent`. */
    const captured = async (agent: BearerClient, amount: number) => {
      const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };
      expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
      return paymentId;
    };
    /** `agent` asks for a refund of `amount` above the threshold: the request's id. */
    const ask = async (agent: BearerClient, paymentId: string, amount: number) => {
      const asked = await agent.call('payment.refund', { paymentId, amount });
      expect(asked.structuredContent).toMatchObject({ status: 'waiting_for_approval', state: 'refund_pending' });
      return (asked.structuredContent as { requestId: string }).requestId;
    };
    /** `agent` asks for a refund of `amount` as an MCP task: the task's id once its request waits, and the request's. */
    const askAsTask = async (agent: BearerClient, paymentId: string, amount: number) => {
      const { task } = await agent.client.request(
        { method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId, amount }, task: {} } },
        CreateTaskResultSchema,
      );
      await eventually(async () => (await status(agent, paymentId)).state === 'refund_pending', 5_000);
      return { taskId: task.taskId, requestId: (await status(agent, paymentId)).pendingRefund!.requestId };
    };
    const pending = async (agent: BearerClient) => {
      const listed = await agent.call('payment.pending_refunds', {});
      expect(listed.isError).toBeFalsy();
      return (listed.structuredContent as { pending: Pending[] }).pending;
    };

    beforeAll(async () => {
      issuer = await TestIssuer.start();
      const env = { DATABASE_URL: url!, SAMPLE_AUTH: 'jwt', SAMPLE_JWT_ISSUER: issuer.issuer, SAMPLE_JWT_JWKS_URL: issuer.jwksUrl };
      samples = [await startSample(env), await startSample(env)];
    });

    beforeEach(() => {
      clients = [];
    });

    afterEach(async () => {
      await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    });

    afterAll(async () => {
      await Promise.all((samples ?? []).map((sample) => sample.stop()));
      await issuer?.close();
    });

    it('refuses a swapped approval STALE_REQUEST: carol read 120, alice withdrew and asked 1,000; nothing is refunded', async () => {
      const alice = await connect('alice', acme, 'payments:refund');
      const carol = await connect('carol', acme, 'payments:approve', 1);
      const paymentId = await captured(alice, 2_000);
      const read = await ask(alice, paymentId, 120);
      expect((await pending(carol)).find((each) => each.paymentId === paymentId)).toMatchObject({ requestId: read, amount: 120 });
      // Alice withdraws without payments:approve, and asks for more.
      const withdrawn = await alice.call('payment.reject_refund', { paymentId, requestId: read });
      expect(withdrawn.structuredContent).toMatchObject({ status: 'withdrawn', state: 'captured', requestId: read });
      const now = await ask(alice, paymentId, 1_000);
      expect(now).not.toBe(read);
      const swapped = await carol.call('payment.approve_refund', { paymentId, requestId: read });
      expect(swapped.isError).toBe(true);
      expect(refusalOf(swapped)).toMatchObject({ code: 'STALE_REQUEST', state: 'refund_pending', waitingRequestId: now });
      expect(textOf(swapped)).toContain(now);
      const after = await status(alice, paymentId);
      expect(after).toMatchObject({ state: 'refund_pending', pendingRefund: { requestId: now, amount: 1_000, requestedBy: 'alice' } });
      expect(refunds(after)).toEqual([]);
    });

    it('refuses a replayed approval STALE_REQUEST: carol approved 150, alice asked the other 850, the same call refunds nothing more', async () => {
      const alice = await connect('alice', acme, 'payments:refund');
      const carol = await connect('carol', acme, 'payments:approve', 1);
      const paymentId = await captured(alice, 1_000);
      const first = await ask(alice, paymentId, 150);
      const approved = await carol.call('payment.approve_refund', { paymentId, requestId: first });
      expect(approved.structuredContent).toMatchObject({ refunded: 150, requestedBy: 'alice', approvedBy: 'carol' });
      const second = await ask(alice, paymentId, 850);
      const replayed = await carol.call('payment.approve_refund', { paymentId, requestId: first });
      expect(refusalOf(replayed)).toMatchObject({ code: 'STALE_REQUEST', waitingRequestId: second });
      const after = await status(alice, paymentId);
      expect(after).toMatchObject({ state: 'refund_pending', refundable: 850, pendingRefund: { requestId: second, amount: 850 } });
      expect(refunds(after)).toEqual([{ kind: 'refund', amount: 150 }]);
    });

    it('answers another org’s approver UNKNOWN_HANDLE on both decision tools and lists nothing of the payment to them', async () => {
      const alice = await connect('alice', acme, 'payments:refund');
      const eve = await connect('eve', globex, 'payments:approve payments:refund');
      const paymentId = await captured(alice, 500);
      const requestId = await ask(alice, paymentId, 300);
      expect(refusalOf(await eve.call('payment.approve_refund', { paymentId, requestId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
      expect(refusalOf(await eve.call('payment.reject_refund', { paymentId, requestId, reason: 'x' }))).toMatchObject({
        code: 'UNKNOWN_HANDLE',
      });
      expect((await pending(eve)).map((each) => each.paymentId)).not.toContain(paymentId);
      const after = await status(alice, paymentId);
      expect(after).toMatchObject({ state: 'refund_pending', pendingRefund: { requestId } });
      expect(refunds(after)).toEqual([]);
    });

    it('lets a teammate approver find the request, see the decision tools on a fresh session, and approve it once; the requester sees her own', async () => {
      const alice = await connect('alice', acme, 'payments:refund payments:approve');
      const paymentId = await captured(alice, 400);
      const requestId = await ask(alice, paymentId, 250);
      const asked = (await pending(alice)).find((each) => each.paymentId === paymentId);
      expect(asked).toEqual({ paymentId, requestId, amount: 250, requestedBy: 'alice', requestedAt: expect.any(String) });
      const carol = await connect('carol', acme, 'payments:approve', 1);
      // Carol never used the payment's handle: what waits puts the decision tools on her menu.
      expect(await carol.names()).toEqual(
        expect.arrayContaining(['payment.approve_refund', 'payment.reject_refund', 'payment.pending_refunds']),
      );
      const found = (await pending(carol)).find((each) => each.paymentId === paymentId);
      expect(found).toMatchObject({ requestId, amount: 250, requestedBy: 'alice' });
      const listed = await pending(carol);
      expect(listed.map((each) => Date.parse(each.requestedAt))).toEqual(
        [...listed.map((each) => Date.parse(each.requestedAt))].sort((a, b) => b - a),
      );
      const approved = await carol.call('payment.approve_refund', { paymentId, requestId: found!.requestId });
      expect(approved.structuredContent).toMatchObject({ refunded: 250, approvedBy: 'carol', requestedBy: 'alice' });
      const after = await status(alice, paymentId);
      expect(after).toMatchObject({ state: 'partially_refunded', refundable: 150 });
      expect(after.pendingRefund).toBeUndefined();
      expect(refunds(after)).toEqual([{ kind: 'refund', amount: 250 }]);
      expect((await pending(carol)).map((each) => each.paymentId)).not.toContain(paymentId);
      // A teammate without payments:approve (and who did not ask) may not decide it.
      await ask(alice, paymentId, 120);
      const bob = await connect('bob', acme, 'payments:refund');
      const next = (await status(alice, paymentId)).pendingRefund!.requestId;
      expect(refusalOf(await bob.call('payment.reject_refund', { paymentId, requestId: next }))).toMatchObject({ code: 'NOT_APPROVER' });
    });

    it('lets the requester without payments:approve withdraw: the payment goes back, nothing is refunded, her menu shows the withdrawal', async () => {
      const alice = await connect('alice', acme, 'payments:refund');
      const paymentId = await captured(alice, 300);
      const requestId = await ask(alice, paymentId, 200);
      expect(await alice.names()).toContain('payment.reject_refund');
      expect(await alice.names()).not.toContain('payment.approve_refund');
      const withdrawn = await alice.call('payment.reject_refund', { paymentId, requestId, reason: 'wrong amount' });
      expect(withdrawn.isError).toBeFalsy();
      expect(withdrawn.structuredContent).toMatchObject({ status: 'withdrawn', state: 'captured' });
      const after = await status(alice, paymentId);
      expect(after).toMatchObject({ state: 'captured', refundable: 300 });
      expect(after.pendingRefund).toBeUndefined();
      expect(refunds(after)).toEqual([]);
    });

    it('withdraws the request of a cancelled task: the task is cancelled and a later approval refunds nothing', async () => {
      const alice = await connect('alice', acme, 'payments:refund');
      const carol = await connect('carol', acme, 'payments:approve', 1);
      const paymentId = await captured(alice, 300);
      const { taskId, requestId } = await askAsTask(alice, paymentId, 200);
      const cancelled = await alice.client.experimental.tasks.cancelTask(taskId);
      expect(cancelled.status).toBe('cancelled');
      expect((await status(alice, paymentId)).state).toBe('captured');
      const late = await carol.call('payment.approve_refund', { paymentId, requestId });
      expect(refusalOf(late)).toMatchObject({ code: 'STALE_REQUEST', state: 'captured' });
      expect(textOf(late)).toContain('No request waits now');
      expect(refunds(await status(alice, paymentId))).toEqual([]);
      expect((await alice.client.experimental.tasks.getTask(taskId)).status).toBe('cancelled');
    });

    it('says so when a task’s request was decided before its cancel: the task keeps the refund’s result', async () => {
      const alice = await connect('alice', acme, 'payments:refund');
      const carol = await connect('carol', acme, 'payments:approve', 1);
      const paymentId = await captured(alice, 300);
      const { taskId, requestId } = await askAsTask(alice, paymentId, 180);
      expect((await carol.call('payment.approve_refund', { paymentId, requestId })).isError).toBeFalsy();
      // Decided and settled first (the cancel then finds it ended), or decided and settling (the cancel says the request was decided first).
      await expect(alice.client.experimental.tasks.cancelTask(taskId)).rejects.toThrow(/terminal status: completed|decided first/);
      await eventually(async () => (await alice.client.experimental.tasks.getTask(taskId)).status === 'completed', 5_000);
      const result = await alice.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
      expect(result.structuredContent).toMatchObject({ refunded: 180, approvedBy: 'carol' });
      expect(refunds(await status(alice, paymentId))).toEqual([{ kind: 'refund', amount: 180 }]);
    });
  },
);
