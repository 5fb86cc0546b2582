import { databaseTargets } from '../utils/databases.js';
import { connectClient, type TestClient } from '../utils/http-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

const targets = databaseTargets('two sample processes on one database', { networkedOnly: true });
const describeTargets = targets.length ? describe.each(targets) : describe.skip.each([{ name: 'no server', url: '' }]);

type Status = { state: string; ledger: { kind: string }[] };

describeTargets('two sample processes sharing $name', ({ url }) => {
  let samples: SampleProcess[];
  let clients: TestClient[];

  const connect = async (sample: SampleProcess) => {
    const client = await connectClient(sample.url);
    clients.push(client);
    return client;
  };
  const kinds = async (agent: TestClient, paymentId: string) =>
    ((await agent.call('payment.status', { paymentId })).structuredContent as Status).ledger.map((entry) => entry.kind);

  beforeEach(async () => {
    samples = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(samples.map((sample) => sample.stop()));
  });

  it('runs one of 50 concurrent captures, split across both processes', async () => {
    samples.push(await startSample({ DATABASE_URL: url! }), await startSample({ DATABASE_URL: url! }));
    const [a, b] = [await connect(samples[0]), await connect(samples[1])];
    const started = await a.call('payment.authorize', { amount: 40, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call('payment.capture', { paymentId })),
    );
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(await kinds(b, paymentId)).toEqual(['authorize', 'capture']);
    expect(await kinds(a, paymentId)).toEqual(['authorize', 'capture']);
  });

  it('never refunds more than was captured under 50 concurrent partial refunds across both processes', async () => {
    samples.push(await startSample({ DATABASE_URL: url! }), await startSample({ DATABASE_URL: url! }));
    const [a, b] = [await connect(samples[0]), await connect(samples[1])];
    const started = await a.call('payment.authorize', { amount: 10, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await b.call('payment.capture', { paymentId });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call('payment.refund', { paymentId, amount: 3 })),
    );
    const refunded = results.filter((result) => !result.isError).length;
    expect(refunded).toBeGreaterThanOrEqual(1);
    expect(refunded).toBeLessThanOrEqual(3);
    const status = (await a.call('payment.status', { paymentId })).structuredContent as Status & { refundable: number };
    expect(status.ledger.filter((entry) => entry.kind === 'refund')).toHaveLength(refunded);
    expect(status.refundable).toBe(10 - 3 * refunded);
  });

  it('frees a payment whose process was killed mid-handler, for the other process', async () => {
    samples.push(
      await startSample({ DATABASE_URL: url!, SAMPLE_HANDLER_DELAY_MS: '3000' }),
      await startSample({ DATABASE_URL: url! }),
    );
    const [slow, healthy] = [await connect(samples[0]), await connect(samples[1])];
    const started = await healthy.call('payment.authorize', { amount: 9, currency: 'USD' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const inFlight = slow.call('payment.capture', { paymentId }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const busy = await healthy.call('payment.capture', { paymentId });
    expect(busy._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'BUSY' });
    await samples[0].stop('SIGKILL');
    await slow.close();
    await inFlight;
    let captured = await healthy.call('payment.capture', { paymentId });
    for (let i = 0; i < 20 && captured.isError; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      captured = await healthy.call('payment.capture', { paymentId });
    }
    expect(captured.isError).toBeFalsy();
    expect(await kinds(healthy, paymentId)).toEqual(['authorize', 'capture']);
  });
});
