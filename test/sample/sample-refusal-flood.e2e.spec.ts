import { DataSource } from 'typeorm';
import { describeNetworkedTargets } from '../utils/databases.js';
import type { TestClient } from '../utils/http-client.js';
import { paymentStatus, SampleGroup } from '../utils/sample-process.js';

const errorCode = (result: { _meta?: Record<string, unknown> }) =>
  (result._meta?.['nestjs-mcp-fsm/error'] as { code: string } | undefined)?.code;

/**
 * Refused calls are recorded as attempts after they are answered; that write must never hold
 * the payment for the next honest call (on MariaDB the attempt's INSERT … SELECT used to take a
 * shared lock on the state row, and the refund's `SKIP LOCKED` answered BUSY), and however many
 * come at once, a payment keeps at most 50 (0.4 reached 57).
 */
describeNetworkedTargets('a flood of refused calls on two sample processes')('two sample processes sharing $name', ({ url }) => {
  let samples: SampleGroup;
  let clients: TestClient[];
  let database: DataSource;

  beforeAll(async () => {
    samples = new SampleGroup();
    const [first, second] = [await samples.start({ DATABASE_URL: url! }), await samples.start({ DATABASE_URL: url! })];
    clients = [await samples.connect(first), await samples.connect(second)];
    database = await new DataSource(url!.startsWith('postgres') ? { type: 'postgres', url } : { type: 'mysql', url }).initialize();
  }, 60_000);

  afterAll(async () => {
    await database?.destroy();
    await samples.stop();
  });

  it('answers the honest call right after a burst of 50 refused captures, round after round', async () => {
    const [a, b] = clients;
    for (let round = 0; round < 3; round++) {
      const started = await a.call('payment.authorize', { amount: 40, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };
      const burst = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? a : b).call('payment.capture', { paymentId })));
      expect(burst.filter((result) => !result.isError)).toHaveLength(1);
      expect(burst.every((result) => !result.isError || ['BUSY', 'FORBIDDEN'].includes(errorCode(result)!))).toBe(true);
      // Right away, on either process: the refused calls' attempt writes may still be running.
      const refund = await (round % 2 ? a : b).call('payment.refund', { paymentId });
      expect(errorCode(refund)).toBeUndefined();
      expect((await paymentStatus(a, paymentId)).state).toBe('refunded');
    }
  }, 120_000);

  it('keeps at most 50 attempts of a payment after a burst of 300 refused calls on both processes', async () => {
    const [a, b] = clients;
    const started = await a.call('payment.authorize', { amount: 40, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const burst = await Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 2 ? a : b).call('payment.refund', { paymentId, amount: i + 1 })),
    );
    expect(burst.every((result) => result.isError)).toBe(true);
    const placeholder = database.options.type === 'postgres' ? '$1' : '?';
    const count = async () =>
      Number(
        (await database.query(`SELECT COUNT(*) AS n FROM mcp_fsm_attempt WHERE handle = ${placeholder}`, [`payment:${paymentId}`]))[0].n,
      );
    // The writes run after the answers: a process that stops (SIGTERM) waits for its writes in flight first.
    await samples.stop();
    const kept = await count();
    expect(kept).toBeGreaterThan(0);
    expect(kept).toBeLessThanOrEqual(50);
  }, 120_000);
});
