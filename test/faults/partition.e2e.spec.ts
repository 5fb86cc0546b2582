import { DataSource } from 'typeorm';
import { describeNetworkedTargets } from '../utils/databases.js';
import { textOf } from '../utils/http-client.js';
import { paymentStatus, SampleGroup } from '../utils/sample-process.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';

/** The store's time limit in both processes (`SAMPLE_STORE_TIMEOUT_MS`); MySQL/MariaDB count it in whole seconds. */
const TIMEOUT_MS = 3000;
/** Process A's handler sleeps this long inside its transaction: the partition starts while it does. */
const HANDLER_MS = 2000;

describeNetworkedTargets('partition e2e')('a network partition between a sample process and $name', ({ url, ...target }) => {
  let proxy: TcpProxy;
  let probe: DataSource;
  let samples: SampleGroup;

  /** Whether another transaction holds the row of `handle` (a locking read that skips it finds nothing). */
  const rowLocked = async (handle: string) => {
    const placeholder = target.name === 'PostgreSQL' ? '$1' : '?';
    const rows = await probe.query(`SELECT handle FROM mcp_fsm_state WHERE handle = ${placeholder} FOR UPDATE SKIP LOCKED`, [handle]);
    return rows.length === 0;
  };

  beforeEach(async () => {
    proxy = await startProxy(url!);
    probe = new DataSource(target.options());
    await probe.initialize();
    samples = new SampleGroup();
  });

  afterEach(async () => {
    proxy.heal();
    await samples.stop();
    await probe.destroy();
    await proxy.stop();
  });

  it('gives the payment back to the other process within the time limit plus a second, and runs its capture once', async () => {
    const timeout = { SAMPLE_STORE_TIMEOUT_MS: String(TIMEOUT_MS) };
    const [sampleA, sampleB] = [
      await samples.start({ ...timeout, DATABASE_URL: proxy.rewrite(url!), SAMPLE_HANDLER_DELAY_MS: String(HANDLER_MS) }),
      await samples.start({ ...timeout, DATABASE_URL: url! }),
    ];
    const [a, b] = [await samples.connect(sampleA), await samples.connect(sampleB)];
    const started = await b.call('payment.authorize', { amount: 25, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };

    const inFlight = a.call('payment.capture', { paymentId }).catch((error: unknown) => error as Error);
    // Wait for process A's claim (its first call on a fresh pool through the proxy may take a while on a busy machine).
    let locked = false;
    for (const waitUntil = Date.now() + 10_000; !locked && Date.now() < waitUntil;) {
      locked = await rowLocked(`payment:${paymentId}`);
      if (!locked) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(locked).toBe(true);
    // The handler reads and writes the ledger right after the lock, then sleeps HANDLER_MS: cut the network while it sleeps.
    await new Promise((resolve) => setTimeout(resolve, 300));
    proxy.partition();
    const partitionedAt = Date.now();

    let captured = await b.call('payment.capture', { paymentId });
    for (let attempt = 0; attempt < 100 && captured.isError && Date.now() - partitionedAt < TIMEOUT_MS + 1000; attempt++) {
      expect(captured._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'BUSY' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      captured = await b.call('payment.capture', { paymentId });
    }
    const freedAfterMs = Date.now() - partitionedAt;
    expect(captured.isError).toBeFalsy();
    expect(freedAfterMs).toBeLessThanOrEqual(TIMEOUT_MS + 1000);

    const answer = await inFlight;
    if (!(answer instanceof Error)) {
      expect(answer._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'STATE_UNAVAILABLE', tool: 'payment.capture' });
      expect(textOf(answer)).toMatch(/^STATE_UNAVAILABLE: "payment\.capture" ran, but the new state of payment could not be stored\./);
    }
    const status = await paymentStatus(b, paymentId);
    expect(status.state).toBe('captured');
    expect(status.ledger.map((entry) => entry.kind)).toEqual(['authorize', 'capture']);
  });
});
