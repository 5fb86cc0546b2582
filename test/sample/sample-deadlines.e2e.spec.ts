import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, type TestClient } from '../utils/http-client.js';
import { paymentStatus, SampleGroup } from '../utils/sample-process.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a payment through `agent` and answers its id. */
async function authorize(agent: TestClient, amount = 25): Promise<string> {
  const started = await agent.call('payment.authorize', { amount, currency: 'EUR' });
  expect(started.isError).toBeFalsy();
  return (started.structuredContent as { paymentId: string }).paymentId;
}

const kinds = async (agent: TestClient, paymentId: string) => (await paymentStatus(agent, paymentId)).ledger.map((entry) => entry.kind);

describe('the sample: an authorization lapses by its own deadline (SAMPLE_AUTHORIZATION_TTL_MS)', () => {
  let dir: string;
  let samples: SampleGroup;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sample-deadlines-'));
    samples = new SampleGroup();
  });

  afterEach(async () => {
    await samples.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const env = (ttlMs: number) => ({ SAMPLE_DB: join(dir, 'sample.sqlite'), SAMPLE_AUTHORIZATION_TTL_MS: String(ttlMs) });

  it('voids an uncaptured authorization with one void entry, and tells the session that follows it', async () => {
    const agent = await samples.connect(await samples.start(env(1_500)));
    const paymentId = await authorize(agent);
    const before = agent.listChanged();
    expect((await paymentStatus(agent, paymentId)).state).toBe('authorized');
    await eventually(async () => (await paymentStatus(agent, paymentId)).state === 'voided', 6_000);
    expect(await kinds(agent, paymentId)).toEqual(['authorize', 'void']);
    await eventually(() => agent.listChanged() > before, 2_000);
    // It fired once: nothing more happens later.
    await sleep(1_500);
    expect(await kinds(agent, paymentId)).toEqual(['authorize', 'void']);
  });

  it('cancels the deadline when the payment is captured first', async () => {
    const agent = await samples.connect(await samples.start(env(1_500)));
    const paymentId = await authorize(agent);
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    await sleep(3_500);
    const status = await paymentStatus(agent, paymentId);
    expect(status.state).toBe('captured');
    expect(status.ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture']);
  });

  it('fires a deadline that passed while no process ran within 5 s of the next start', async () => {
    const first = await samples.start(env(1_000));
    const paymentId = await authorize(await samples.connect(first));
    await first.stop();
    await sleep(2_000);
    const started = Date.now();
    const agent = await samples.connect(await samples.start(env(1_000)));
    await eventually(async () => (await paymentStatus(agent, paymentId)).state === 'voided', 5_000);
    expect(Date.now() - started).toBeLessThan(5_000 + 1_000);
    expect(await kinds(agent, paymentId)).toEqual(['authorize', 'void']);
  });
});

const postgres = process.env.TEST_POSTGRES_URL;
(postgres ? describe : describe.skip)('the sample: deadlines on two processes sharing PostgreSQL', () => {
  let samples: SampleGroup;

  beforeEach(() => {
    samples = new SampleGroup();
  });

  afterEach(() => samples.stop());

  it('fires each of twenty deadlines once', async () => {
    const env = { DATABASE_URL: postgres!, SAMPLE_AUTHORIZATION_TTL_MS: '2000' };
    const a = await samples.connect(await samples.start(env));
    const b = await samples.connect(await samples.start(env));
    const payments = await Promise.all(Array.from({ length: 20 }, (_, i) => authorize(i % 2 ? a : b, i + 1)));
    await eventually(async () => {
      const states = await Promise.all(payments.map(async (paymentId) => (await paymentStatus(a, paymentId)).state));
      return states.every((state) => state === 'voided');
    }, 15_000);
    await sleep(1_500);
    for (const paymentId of payments) {
      expect(await kinds(b, paymentId)).toEqual(['authorize', 'void']);
    }
  });
});
