import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { eventually } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { describeNetworkedTargets } from '../utils/databases.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

type Status = {
  state: string;
  refundable: number;
  ledger: { kind: string; amount: number }[];
  pendingRefund?: { requestId: string; amount: number; requestedBy: string | null; requestedAt: string };
};

const refusal = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined;
const refunds = (status: Status) => status.ledger.filter((entry) => entry.kind === 'refund');

/** The request waiting on a payment, from a waiting result. */
const requestOf = (result: CallToolResult) => (result.structuredContent as { requestId: string }).requestId;

/**
 * Four eyes on the sample (design §10 "Four eyes", "Added in 0.5"), with the demo bearer of
 * `SAMPLE_AUTH=optional` (`Bearer <name>;org=<team>;<scope>…`): a refund above
 * `SAMPLE_APPROVAL_THRESHOLD` waits in `refund_pending` until another person of the payment's team
 * with `payments:approve` approves it by its requestId (the refund runs then, once) or rejects it.
 */
describe('the sample with a second person approving refunds above the threshold', () => {
  let dir: string;
  let sample: SampleProcess;
  let clients: BearerClient[];

  const connect = async (bearer: string, to: SampleProcess = sample) => {
    const client = await connectBearerClient(to.url, bearer);
    clients.push(client);
    return client;
  };
  const status = async (agent: BearerClient, paymentId: string) =>
    (await agent.call('payment.status', { paymentId })).structuredContent as Status;
  /** A payment of `amount` EUR authorized and captured by `agent`. */
  const captured = async (agent: BearerClient, amount: number) => {
    const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    return paymentId;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-sample-approvals-'));
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite'), SAMPLE_AUTH: 'optional' });
  });

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
  });

  afterAll(async () => {
    await sample.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('parks a refund above the threshold in refund_pending without a ledger entry; the decision tools are listed only to a payments:approve holder', async () => {
    const alice = await connect('alice;org=acme');
    const paymentId = await captured(alice, 300);
    expect(await alice.names()).not.toContain('payment.approve_refund');
    const small = await captured(alice, 300);
    expect((await alice.call('payment.refund', { paymentId: small, amount: 100 })).structuredContent).toMatchObject({ refunded: 100 });

    const asked = await alice.call('payment.refund', { paymentId, amount: 150 });
    expect(asked.isError).toBeFalsy();
    expect(asked.structuredContent).toMatchObject({
      status: 'waiting_for_approval',
      state: 'refund_pending',
      approve: 'payment.approve_refund',
      reject: 'payment.reject_refund',
    });
    expect((asked.structuredContent as { message: string }).message).toContain('payment.approve_refund');
    const requestId = requestOf(asked);
    expect(requestId).toMatch(/^[A-Za-z0-9_-]{24}$/);
    // The console's instance page shows who asked, what and when.
    const page = await (await fetch(new URL(`/workflows/payment/${paymentId}`, sample.url))).text();
    expect(page).toMatch(/<section [^>]*data-waiting data-tool="payment\.refund" data-requested-by="alice" data-at="[^"]+"/);
    expect(page).toContain(`data-request-id="${requestId}"`);
    expect(page).toContain('&quot;amount&quot;: 150');
    expect(await status(alice, paymentId)).toMatchObject({
      state: 'refund_pending',
      refundable: 300,
      ledger: [
        { kind: 'authorize', amount: 300 },
        { kind: 'capture', amount: 300 },
      ],
      pendingRefund: { requestId, amount: 150, requestedBy: 'alice', requestedAt: expect.any(String) },
    });
    // Alice follows the payment, which waits; she lacks payments:approve, so she is shown only the withdrawal.
    expect(await alice.names()).not.toContain('payment.approve_refund');
    expect(await alice.names()).toContain('payment.reject_refund');
    const holder = await connect('alice;org=acme;payments:approve;payments:refund');
    await holder.call('payment.status', { paymentId });
    expect(await holder.names()).toEqual(expect.arrayContaining(['payment.approve_refund', 'payment.reject_refund']));
    // The whole refund (no amount) counts too: 300 is above the threshold.
    const whole = await captured(alice, 300);
    expect((await alice.call('payment.refund', { paymentId: whole })).structuredContent).toMatchObject({ status: 'waiting_for_approval' });
    expect((await status(alice, whole)).pendingRefund).toMatchObject({ amount: 300, requestedBy: 'alice' });
  });

  it('refuses the requester’s own approval whatever their scopes (SELF_APPROVAL), changing nothing', async () => {
    const alice = await connect('alice;org=acme');
    const paymentId = await captured(alice, 300);
    const requestId = requestOf(await alice.call('payment.refund', { paymentId, amount: 150 }));
    const everything = await connect('alice;org=acme;payments:approve;payments:refund;workflows:read;invoices:approve');
    const own = await everything.call('payment.approve_refund', { paymentId, requestId });
    expect(own.isError).toBe(true);
    expect(refusal(own)).toMatchObject({ code: 'SELF_APPROVAL', state: 'refund_pending' });
    expect(JSON.stringify(own.content)).toContain('cannot approve it');
    // Without payments:approve the tool is refused before the gate (a JSON-RPC error naming the scope).
    const anonymous = await connect('');
    await expect(anonymous.call('payment.approve_refund', { paymentId, requestId })).rejects.toThrow(/bearer token/);
    const after = await status(alice, paymentId);
    expect(after.state).toBe('refund_pending');
    expect(refunds(after)).toEqual([]);
    expect(after.pendingRefund).toMatchObject({ requestId, amount: 150, requestedBy: 'alice' });
  });

  it('runs the refund once when another approver approves it: one ledger refund entry, partially_refunded; then it is not listed any more', async () => {
    const alice = await connect('alice;org=acme');
    const paymentId = await captured(alice, 300);
    const requestId = requestOf(await alice.call('payment.refund', { paymentId, amount: 150 }));
    const carol = await connect('carol;org=acme;payments:approve');
    const noScope = await connect('dave;org=acme');
    await expect(noScope.call('payment.approve_refund', { paymentId, requestId })).rejects.toThrow(/payments:approve/);
    const approved = await carol.call('payment.approve_refund', { paymentId, requestId });
    expect(approved.isError).toBeFalsy();
    expect(approved.structuredContent).toMatchObject({ refunded: 150, requestedBy: 'alice', approvedBy: 'carol' });
    const after = await status(alice, paymentId);
    expect(after).toMatchObject({ state: 'partially_refunded', refundable: 150 });
    expect(after.pendingRefund).toBeUndefined();
    expect(refunds(after)).toEqual([{ kind: 'refund', amount: 150 }]);
    const page = await (await fetch(new URL(`/workflows/payment/${paymentId}`, sample.url))).text();
    expect(page).not.toContain('data-waiting');
    expect(page).toMatch(
      /<tr data-history-entry data-tool="payment\.approve_refund">[\s\S]*?refund_pending → partially_refunded[\s\S]*?carol <span class="approval" data-approval="approved">\(approved; asked by alice\)/,
    );
    expect(page).toMatch(/<tr data-history-entry data-tool="payment\.refund">[\s\S]*?captured → refund_pending[\s\S]*?alice<\/td>/);
    // Decided: the same request again decides nothing.
    const again = await carol.call('payment.approve_refund', { paymentId, requestId });
    expect(refusal(again)).toMatchObject({ code: 'STALE_REQUEST', state: 'partially_refunded' });
    // A principal of no team reaches only its own payments, an approver's scope or not.
    const stranger = await connect('erin;payments:approve');
    expect(refusal(await stranger.call('payment.approve_refund', { paymentId, requestId }))).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    const holder = await connect('alice;org=acme;payments:approve');
    await holder.call('payment.status', { paymentId });
    expect(await holder.names()).not.toContain('payment.approve_refund');
    expect(refunds(await status(alice, paymentId))).toHaveLength(1);
  });

  it('puts the payment back where it was when another person rejects it, with no ledger entry; it can be asked again', async () => {
    const alice = await connect('alice;org=acme');
    const paymentId = await captured(alice, 300);
    const requestId = requestOf(await alice.call('payment.refund', { paymentId, amount: 250 }));
    const carol = await connect('carol;org=acme;payments:approve');
    const rejected = await carol.call('payment.reject_refund', { paymentId, requestId, reason: 'duplicate of an earlier refund' });
    expect(rejected.isError).toBeFalsy();
    expect(rejected.structuredContent).toMatchObject({ status: 'rejected', state: 'captured' });
    const after = await status(alice, paymentId);
    expect(after).toMatchObject({ state: 'captured', refundable: 300 });
    expect(after.pendingRefund).toBeUndefined();
    expect(refunds(after)).toEqual([]);
    const page = await (await fetch(new URL(`/workflows/payment/${paymentId}`, sample.url))).text();
    expect(page).toMatch(
      /refund_pending → captured[\s\S]*?carol <span class="approval" data-approval="rejected">\(rejected; asked by alice: duplicate of an earlier refund\)/,
    );
    expect((await alice.call('payment.refund', { paymentId, amount: 50 })).structuredContent).toMatchObject({ refunded: 50 });
  });
});

describe('the sample with approvals for a 2026-07-28 client', () => {
  let dir: string;
  let sample: SampleProcess;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-sample-approvals-modern-'));
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite'), SAMPLE_AUTH: 'optional' });
  });

  afterAll(async () => {
    await sample.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('parks the refund and lets another principal approve it, without sessions', async () => {
    const alice = await connectModernClient(sample.url, { authorization: 'Bearer alice;org=acme' });
    const carol = await connectModernClient(sample.url, { authorization: 'Bearer carol;org=acme;payments:approve' });
    try {
      const call = async (client: typeof alice, name: string, args: Record<string, unknown>) =>
        (await client.callTool({ name, arguments: args })) as CallToolResult;
      const { paymentId } = (await call(alice, 'payment.authorize', { amount: 300, currency: 'EUR' })).structuredContent as {
        paymentId: string;
      };
      await call(alice, 'payment.capture', { paymentId });
      const asked = await call(alice, 'payment.refund', { paymentId, amount: 200 });
      expect(asked.structuredContent).toMatchObject({ status: 'waiting_for_approval' });
      const requestId = requestOf(asked);
      await expect(call(alice, 'payment.approve_refund', { paymentId, requestId })).rejects.toThrow();
      expect((await call(carol, 'payment.approve_refund', { paymentId, requestId })).structuredContent).toMatchObject({
        refunded: 200,
        approvedBy: 'carol',
      });
      const after = (await call(alice, 'payment.status', { paymentId })).structuredContent as Status;
      expect(after).toMatchObject({ state: 'partially_refunded', refundable: 100 });
    } finally {
      await Promise.all([alice.close(), carol.close()]);
    }
  });
});

describeNetworkedTargets('approvals on two sample processes')('two sample processes sharing $name', ({ url }) => {
  let samples: SampleProcess[];
  let clients: BearerClient[];

  beforeAll(async () => {
    clients = [];
    samples = [
      await startSample({ DATABASE_URL: url!, SAMPLE_AUTH: 'optional' }),
      await startSample({ DATABASE_URL: url!, SAMPLE_AUTH: 'optional' }),
    ];
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(samples.map((sample) => sample.stop()));
  });

  it('keeps a refund task working through a SIGKILL; an approval on the other process completes it, a rejection DECLINED', async () => {
    const extra = await startSample({ DATABASE_URL: url!, SAMPLE_AUTH: 'optional' });
    const alice = await connectBearerClient(extra.url, 'alice;org=acme');
    const asTask = async (amount: number) => {
      const started = await alice.call('payment.authorize', { amount: 300, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };
      await alice.call('payment.capture', { paymentId });
      const { task } = await alice.client.request(
        { method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId, amount }, task: {} } },
        CreateTaskResultSchema,
      );
      const message = async () => (await alice.client.experimental.tasks.getTask(task.taskId)).statusMessage ?? '';
      await eventually(async () => /second person/.test(await message()), 5_000);
      return { paymentId, taskId: task.taskId };
    };
    const approved = await asTask(200);
    const rejected = await asTask(150);
    await alice.close().catch(() => undefined);
    await extra.stop('SIGKILL');
    const reader = await connectBearerClient(samples[1].url, 'alice;org=acme');
    clients.push(reader);
    expect(await reader.client.experimental.tasks.getTask(approved.taskId)).toMatchObject({ status: 'working' });
    const carol = await connectBearerClient(samples[0].url, 'carol;org=acme;payments:approve');
    clients.push(carol);
    const waiting = async (paymentId: string) =>
      ((await reader.call('payment.status', { paymentId })).structuredContent as Status).pendingRefund!.requestId;
    const approving = { paymentId: approved.paymentId, requestId: await waiting(approved.paymentId) };
    expect((await carol.call('payment.approve_refund', approving)).isError).toBeFalsy();
    const rejecting = { paymentId: rejected.paymentId, requestId: await waiting(rejected.paymentId), reason: 'no' };
    expect((await carol.call('payment.reject_refund', rejecting)).isError).toBeFalsy();
    const status = async (taskId: string) => (await reader.client.experimental.tasks.getTask(taskId)).status;
    await eventually(async () => (await status(approved.taskId)) === 'completed', 5_000);
    const result = await reader.client.experimental.tasks.getTaskResult(approved.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ refunded: 200, approvedBy: 'carol' });
    await eventually(async () => (await status(rejected.taskId)) === 'completed', 5_000);
    const declined = (await reader.client.experimental.tasks.getTaskResult(rejected.taskId, CallToolResultSchema)) as CallToolResult;
    expect(declined.isError).toBe(true);
    expect(refusal(declined)).toMatchObject({ code: 'DECLINED', tool: 'payment.refund' });
  });

  it('refunds once under ten concurrent approvals by two approvers on both processes', async () => {
    const connect = async (bearer: string, index: number) => {
      const client = await connectBearerClient(samples[index].url, bearer);
      clients.push(client);
      return client;
    };
    const alice = await connect('alice;org=acme', 0);
    const started = await alice.call('payment.authorize', { amount: 500, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await alice.call('payment.capture', { paymentId });
    const asked = await alice.call('payment.refund', { paymentId, amount: 400 });
    expect(asked.structuredContent).toMatchObject({ status: 'waiting_for_approval' });
    const requestId = requestOf(asked);
    const approvers = [await connect('carol;org=acme;payments:approve', 0), await connect('erin;org=acme;payments:approve', 1)];
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => approvers[i % 2].call('payment.approve_refund', { paymentId, requestId })),
    );
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    // The others were refused: BUSY while the winner held it, STALE_REQUEST once it was decided.
    const losers = results.filter((result) => result.isError).map((result) => refusal(result)?.code);
    expect(losers.every((code) => code === 'BUSY' || code === 'STALE_REQUEST')).toBe(true);
    const after = (await alice.call('payment.status', { paymentId })).structuredContent as Status;
    expect(after).toMatchObject({ state: 'partially_refunded', refundable: 100 });
    expect(refunds(after)).toEqual([{ kind: 'refund', amount: 400 }]);
  });
});
