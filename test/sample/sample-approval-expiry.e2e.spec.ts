import { CallToolResultSchema, CreateTaskResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBearerClient, type BearerClient } from '../utils/bearer-client.js';
import { eventually } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

type Status = { state: string; ledger: { kind: string; amount: number }[]; pendingRefund?: { amount: number } };

const EXPIRY = 'mcp.approval-expiry.payment.refund';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const refusal = (result: CallToolResult) => result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined;

/** The `data-actor` values of the history rows on the console's page of a payment, newest first. */
async function historyActors(sample: SampleProcess, paymentId: string): Promise<string[]> {
  const page = await (await fetch(new URL(`/workflows/payment/${paymentId}`, sample.url))).text();
  return [...page.matchAll(/<td class="mono principal" data-actor="([^"]*)"/g)].map(([, actor]) => actor);
}

/**
 * Four eyes with an expiry (design §10 "Deadlines", `SAMPLE_APPROVAL_TTL_MS`): a refund left in
 * `refund_pending` that long expires as a rejection, on real sample processes.
 */
describe('the sample: a refund nobody decides expires as a rejection (SAMPLE_APPROVAL_TTL_MS)', () => {
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
  const captured = async (agent: BearerClient, amount: number) => {
    const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    return paymentId;
  };
  const kinds = async (agent: BearerClient, paymentId: string) => (await status(agent, paymentId)).ledger.map(({ kind }) => kind);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-sample-expiry-'));
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite'), SAMPLE_AUTH: 'optional', SAMPLE_APPROVAL_TTL_MS: '2000' });
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

  it('puts the payment back where the request found it, with no refund entry, names the deadline in the history, and tells its session', async () => {
    const alice = await connect('alice;org=acme');
    const paymentId = await captured(alice, 300);
    expect((await alice.call('payment.refund', { paymentId, amount: 150 })).structuredContent).toMatchObject({
      status: 'waiting_for_approval',
    });
    const page = await (await fetch(new URL(`/workflows/payment/${paymentId}`, sample.url))).text();
    expect(page).toMatch(
      new RegExp(
        `<tr data-deadline="${EXPIRY.replace(/\./g, '\\.')}" data-event="payment\\.reject_refund" data-due-at="[^"]+" data-attempts="0">`,
      ),
    );
    const before = alice.listChanged();
    await eventually(async () => (await status(alice, paymentId)).state === 'captured', 8_000);
    expect(await status(alice, paymentId)).toMatchObject({ state: 'captured', ledger: [{ kind: 'authorize' }, { kind: 'capture' }] });
    expect((await status(alice, paymentId)).pendingRefund).toBeUndefined();
    await eventually(() => alice.listChanged() > before, 3_000);
    expect((await historyActors(sample, paymentId))[0]).toBe(`deadline:${EXPIRY}`);
    // Nothing waits now: an approver has nothing to approve, and no refund is ever written.
    const bob = await connect('bob;org=acme;payments:approve');
    expect((await bob.call('payment.approve_refund', { paymentId, requestId: 'expired-request' })).isError).toBe(true);
    expect(await kinds(alice, paymentId)).toEqual(['authorize', 'capture']);
  });

  it('cancels the expiry when the request is approved first: one refund, and nothing happens later', async () => {
    const alice = await connect('alice;org=acme');
    const paymentId = await captured(alice, 300);
    const { requestId } = (await alice.call('payment.refund', { paymentId, amount: 150 })).structuredContent as { requestId: string };
    const bob = await connect('bob;org=acme;payments:approve');
    expect((await bob.call('payment.approve_refund', { paymentId, requestId })).structuredContent).toMatchObject({ refunded: 150 });
    await sleep(3_000);
    expect(await status(alice, paymentId)).toMatchObject({ state: 'partially_refunded' });
    expect(await kinds(alice, paymentId)).toEqual(['authorize', 'capture', 'refund']);
    expect((await historyActors(sample, paymentId)).filter((actor) => actor.startsWith('deadline:'))).toEqual([]);
  });

  it('completes a refund task waiting on an expired request with a DECLINED tool error', async () => {
    const alice = await connect('alice;org=acme');
    const paymentId = await captured(alice, 300);
    const { task } = await alice.client.request(
      { method: 'tools/call', params: { name: 'payment.refund', arguments: { paymentId, amount: 200 }, task: {} } },
      CreateTaskResultSchema,
    );
    await eventually(async () => (await alice.client.experimental.tasks.getTask(task.taskId)).status === 'completed', 8_000);
    const declined = (await alice.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)) as CallToolResult;
    expect(declined.isError).toBe(true);
    expect(refusal(declined)).toMatchObject({ code: 'DECLINED' });
    expect((declined.content[0] as { text: string }).text).toContain('it expired');
    expect(await kinds(alice, paymentId)).toEqual(['authorize', 'capture']);
  });
});

const postgres = process.env.TEST_POSTGRES_URL;
(postgres ? describe : describe.skip)('the sample: refund requests expiring on two processes sharing PostgreSQL', () => {
  let samples: SampleProcess[];
  let clients: BearerClient[];

  beforeAll(async () => {
    const env = { DATABASE_URL: postgres!, SAMPLE_AUTH: 'optional', SAMPLE_APPROVAL_TTL_MS: '2000' };
    samples = [await startSample(env), await startSample(env)];
    clients = [];
  });

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(samples.map((each) => each.stop()));
  });

  it('expires each of ten requests once, whichever process claims its timer', async () => {
    const agents = await Promise.all(samples.map((each) => connectBearerClient(each.url, 'alice')));
    clients.push(...agents);
    const payments = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const agent = agents[i % 2];
        const started = await agent.call('payment.authorize', { amount: 300, currency: 'EUR' });
        const { paymentId } = started.structuredContent as { paymentId: string };
        await agent.call('payment.capture', { paymentId });
        expect((await agent.call('payment.refund', { paymentId, amount: 150 + i })).structuredContent).toMatchObject({
          status: 'waiting_for_approval',
        });
        return paymentId;
      }),
    );
    const state = async (paymentId: string) => ((await agents[0].call('payment.status', { paymentId })).structuredContent as Status).state;
    await eventually(async () => (await Promise.all(payments.map(state))).every((each) => each === 'captured'), 15_000);
    await sleep(1_500);
    for (const paymentId of payments) {
      const actors = await historyActors(samples[1], paymentId);
      expect(actors.filter((actor) => actor === `deadline:${EXPIRY}`)).toHaveLength(1);
      const ledger = ((await agents[1].call('payment.status', { paymentId })).structuredContent as Status).ledger;
      expect(ledger.map(({ kind }) => kind)).toEqual(['authorize', 'capture']);
    }
  });
});
