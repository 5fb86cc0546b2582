import { describeNetworkedTargets } from '../utils/databases.js';
import type { TestClient } from '../utils/http-client.js';
import { paymentStatus, SampleGroup } from '../utils/sample-process.js';

describeNetworkedTargets('two sample processes on one database')('two sample processes sharing $name', ({ url }) => {
  let samples: SampleGroup;

  const kinds = async (agent: TestClient, paymentId: string) => (await paymentStatus(agent, paymentId)).ledger.map((entry) => entry.kind);
  /** Two samples on the database, `first` with `firstEnv` too, and a client connected to each. */
  const twoConnected = async (firstEnv: Record<string, string> = {}) => {
    const first = await samples.start({ DATABASE_URL: url!, ...firstEnv });
    const second = await samples.start({ DATABASE_URL: url! });
    return { first, clients: [await samples.connect(first), await samples.connect(second)] };
  };

  beforeEach(() => {
    samples = new SampleGroup();
  });

  afterEach(() => samples.stop());

  it('runs one of 50 concurrent captures, split across both processes', async () => {
    const [a, b] = (await twoConnected()).clients;
    const started = await a.call('payment.authorize', { amount: 40, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call('payment.capture', { paymentId })));
    expect(results.filter((result) => !result.isError)).toHaveLength(1);
    expect(await kinds(b, paymentId)).toEqual(['authorize', 'capture']);
    expect(await kinds(a, paymentId)).toEqual(['authorize', 'capture']);
  });

  it('never refunds more than was captured under 50 concurrent partial refunds across both processes', async () => {
    const [a, b] = (await twoConnected()).clients;
    const started = await a.call('payment.authorize', { amount: 10, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    await b.call('payment.capture', { paymentId });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call('payment.refund', { paymentId, amount: 3 })),
    );
    const refunded = results.filter((result) => !result.isError).length;
    expect(refunded).toBeGreaterThanOrEqual(1);
    expect(refunded).toBeLessThanOrEqual(3);
    const status = await paymentStatus(a, paymentId);
    expect(status.ledger.filter((entry) => entry.kind === 'refund')).toHaveLength(refunded);
    expect(status.refundable).toBe(10 - 3 * refunded);
  });

  it('frees a payment whose process was killed mid-handler, for the other process', async () => {
    const { first: slowSample, clients } = await twoConnected({ SAMPLE_HANDLER_DELAY_MS: '3000' });
    const [slow, healthy] = clients;
    const started = await healthy.call('payment.authorize', { amount: 9, currency: 'USD' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const inFlight = slow.call('payment.capture', { paymentId }).catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 800));
    const busy = await healthy.call('payment.capture', { paymentId });
    expect(busy._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'BUSY' });
    await slowSample.stop('SIGKILL');
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
