import { describeNetworkedTargets, type DatabaseTarget } from '../utils/databases.js';
import { connectClient, eventually, type TestClient } from '../utils/http-client.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../utils/round-robin-proxy.js';
import { SampleGroup, type SampleProcess } from '../utils/sample-process.js';

/** Every payment handler of these processes takes this long, so a call is in flight when its process is killed. */
const HANDLER_DELAY_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A client whose process is killed under a call twice, behind a load balancer that routes to
 * live processes only (the sessions are in the database, so any process serves them). Each time
 * the SDK client resumes the call's stream with a GET (its `Last-Event-ID`) and reconnects its GET
 * stream. The GETs the balancer sees are counted: once the faults stop, the client keeps one
 * stream open and opens no other.
 */
describeNetworkedTargets('one stream per session after faults')(
  'a client that lost its process twice mid-call, on $name',
  (target: DatabaseTarget) => {
    let samples: SampleGroup;
    let proxy: RoundRobinProxy;
    let agent: TestClient | undefined;

    const start = (): Promise<SampleProcess> =>
      samples.start({ DATABASE_URL: target.url!, SAMPLE_AUTH: 'optional', SAMPLE_HANDLER_DELAY_MS: String(HANDLER_DELAY_MS) });
    const gets = () => proxy.log.filter((entry) => entry.startsWith('GET')).length;

    beforeEach(() => {
      samples = new SampleGroup();
    });

    afterEach(async () => {
      await agent?.close().catch(() => undefined);
      await proxy?.close();
      await samples.stop();
    });

    /** A call of `payment.capture` on the only process the balancer routes to, killed 1 s into its handler; the balancer then routes to `next`. */
    async function killedMidCall(paymentId: string, victim: SampleProcess, next: SampleProcess): Promise<void> {
      proxy.setTargets([victim.url]);
      const call = agent!.client.callTool({ name: 'payment.capture', arguments: { paymentId } }, undefined, { timeout: 15_000 }).then(
        () => 'answered',
        () => 'lost',
      );
      await sleep(1_000);
      await victim.stop('SIGKILL');
      proxy.setTargets([next.url]);
      expect(await call).toBe('lost');
    }

    it('settles to one steady GET stream once the faults stop', async () => {
      const [first, second] = [await start(), await start()];
      proxy = await startRoundRobinProxy([first.url]);
      agent = await connectClient(proxy.url, { authorization: 'Bearer alice' });
      await eventually(() => proxy.open('GET') === 1, 5_000);
      const authorize = () => agent!.call('payment.authorize', { amount: 10, currency: 'EUR' });
      const paymentOf = async () => ((await authorize()).structuredContent as { paymentId: string }).paymentId;

      await killedMidCall(await paymentOf(), first, second);
      const third = await start();
      await killedMidCall(await paymentOf(), second, third);

      // The client's reconnections (1 s, then 1.5 s after a refused one) are over well within this.
      await sleep(8_000);
      const settled = gets();
      await sleep(10_000);
      expect(gets() - settled).toBe(0);
      expect(proxy.open('GET')).toBe(1);
      // The session goes on, with its stream, on the process that is left.
      expect((await authorize()).isError).toBeFalsy();
    }, 120_000);
  },
);
