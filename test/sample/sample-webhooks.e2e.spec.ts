import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, type TestClient } from '../utils/http-client.js';
import { paymentStatus, SampleGroup, type SampleProcess } from '../utils/sample-process.js';

const SECRET = 'whsec_test_only';

/** Starts a payment through `agent` and answers its id. */
async function authorize(agent: TestClient, amount = 25): Promise<string> {
  const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
  expect(started.isError).toBeFalsy();
  return (started.structuredContent as { paymentId: string }).paymentId;
}

const sign = (body: string, secret = SECRET) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** POSTs `body` (JSON text) to the sample's webhook, signed with `signature` (none when `null`). */
async function post(sample: SampleProcess, body: string, signature: string | null = sign(body)) {
  const response = await fetch(new URL('/webhooks/psp', sample.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'x-webhook-signature': signature }) },
    body,
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const revoked = (id: string, paymentId: string) => JSON.stringify({ id, type: 'authorization.revoked', paymentId });

/** The payment's state and ledger kinds, read through `agent`. */
const seen = async (agent: TestClient, paymentId: string) => {
  const status = await paymentStatus(agent, paymentId);
  return { state: status.state, ledger: status.ledger.map((entry) => entry.kind) };
};

describe.each(['express', 'fastify'])('the sample: the payment provider webhook (POST /webhooks/psp, %s)', (adapter) => {
  let dir: string;
  let samples: SampleGroup;
  let sample: SampleProcess;
  let agent: TestClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sample-webhooks-'));
    samples = new SampleGroup();
    sample = await samples.start({ SAMPLE_DB: join(dir, 'sample.sqlite'), SAMPLE_WEBHOOK_SECRET: SECRET, HTTP_ADAPTER: adapter });
    agent = await samples.connect(sample);
  }, 30_000);

  afterAll(async () => {
    await samples.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('voids an authorized payment once, with one void entry and list_changed to the session that follows it; a replay changes nothing', async () => {
    const paymentId = await authorize(agent);
    const before = agent.listChanged();
    expect(await post(sample, revoked('evt_1', paymentId))).toEqual({ status: 200, body: { applied: true, state: 'voided' } });
    expect(await seen(agent, paymentId)).toEqual({ state: 'voided', ledger: ['authorize', 'void'] });
    await eventually(() => agent.listChanged() > before, 2_000);

    expect(await post(sample, revoked('evt_1', paymentId))).toEqual({ status: 200, body: { applied: false } });
    expect(await seen(agent, paymentId)).toEqual({ state: 'voided', ledger: ['authorize', 'void'] });
  });

  it('answers 409 naming the state when the payment is not authorized, changing nothing', async () => {
    const paymentId = await authorize(agent);
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    const refused = await post(sample, revoked('evt_2', paymentId));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ state: 'captured', message: expect.stringContaining('"captured"') });
    expect(await seen(agent, paymentId)).toEqual({ state: 'captured', ledger: ['authorize', 'capture'] });
  });

  it('answers 404 for an unknown payment, and 401 for a missing or wrong signature, changing nothing', async () => {
    expect((await post(sample, revoked('evt_3', 'AAAAAAAAAAAAAAAAAAAAAA'))).status).toBe(404);
    const paymentId = await authorize(agent);
    const body = revoked('evt_4', paymentId);
    expect(await post(sample, body, null)).toMatchObject({ status: 401, body: { message: 'X-Webhook-Signature is missing.' } });
    expect(await post(sample, body, sign(body, 'another secret'))).toMatchObject({
      status: 401,
      body: { message: 'X-Webhook-Signature does not match the body.' },
    });
    expect((await post(sample, body, sign(`${body} `))).status).toBe(401);
    expect(await post(sample, body, 'sha256=zz')).toMatchObject({ status: 401 });
    expect(await seen(agent, paymentId)).toEqual({ state: 'authorized', ledger: ['authorize'] });
    // Nothing was recorded under the id: the signed event still applies.
    expect(await post(sample, body)).toEqual({ status: 200, body: { applied: true, state: 'voided' } });
  });

  it('answers 400 naming what is wrong with a body that is not such an event, changing nothing', async () => {
    const paymentId = await authorize(agent);
    const unknownType = JSON.stringify({ id: 'evt_5', type: 'charge.refunded', paymentId });
    const refused = await post(sample, unknownType);
    expect(refused.status).toBe(400);
    expect(String(refused.body?.message)).toContain('type');
    const missingId = JSON.stringify({ type: 'authorization.revoked', paymentId });
    expect(await post(sample, missingId)).toMatchObject({ status: 400, body: { message: expect.stringContaining('id:') } });
    expect((await post(sample, '{"id": "evt_6", "type": ')).status).toBe(400);
    expect(await seen(agent, paymentId)).toEqual({ state: 'authorized', ledger: ['authorize'] });
  });
});

describe('the sample without SAMPLE_WEBHOOK_SECRET', () => {
  const samples = new SampleGroup();
  afterAll(() => samples.stop());

  it('does not serve POST /webhooks/psp', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sample-webhooks-off-'));
    try {
      const sample = await samples.start({ SAMPLE_DB: join(dir, 'sample.sqlite'), SAMPLE_WEBHOOK_SECRET: '' });
      expect((await post(sample, revoked('evt_1', 'AAAAAAAAAAAAAAAAAAAAAA'))).status).toBe(404);
    } finally {
      await samples.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const postgres = process.env.TEST_POSTGRES_URL;
(postgres ? describe : describe.skip)('the sample: the webhook on two processes sharing PostgreSQL', () => {
  const samples = new SampleGroup();
  afterAll(() => samples.stop());

  it('applies an event sent to both processes at once exactly once; replays on either change nothing', async () => {
    const env = { DATABASE_URL: postgres!, SAMPLE_WEBHOOK_SECRET: SECRET };
    const [a, b] = [await samples.start(env), await samples.start(env)];
    const agent = await samples.connect(a);
    const paymentId = await authorize(agent);
    const body = revoked(`evt_pg_${paymentId}`, paymentId);
    const replies = await Promise.all([post(a, body), post(b, body), post(a, body), post(b, body)]);
    expect(replies.filter((reply) => reply.status === 200 && reply.body?.applied === true)).toHaveLength(1);
    // The others found it applied, or (while the first held the payment) were asked to send it again.
    for (const reply of replies) expect([200, 503]).toContain(reply.status);
    for (const sample of [a, b]) expect(await post(sample, body)).toEqual({ status: 200, body: { applied: false } });
    expect(await seen(agent, paymentId)).toEqual({ state: 'voided', ledger: ['authorize', 'void'] });
  });
});
