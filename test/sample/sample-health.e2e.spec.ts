import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SampleGroup, type SampleProcess } from '../utils/sample-process.js';
import { getHealth } from '../utils/health-check.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';

const STORE_TIMEOUT_MS = 1000;
/** Scheduling slack on a loaded 2-core machine, on top of the bound the store promises. */
const SLACK_MS = 1500;

const health = (sample: SampleProcess) => getHealth(new URL('/health', sample.url));

/** `/health` until it answers `status` (the pool reconnects after a heal), or the last answer. */
async function healthUntil(sample: SampleProcess, status: number) {
  let answer = await health(sample);
  for (let tries = 0; answer.status !== status && tries < 30; tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await health(sample);
  }
  return answer;
}

describe.each(['express', 'fastify'])('the sample GET /health on %s', (adapter) => {
  let samples: SampleGroup;

  beforeEach(() => {
    samples = new SampleGroup();
  });

  afterEach(() => samples.stop());

  it('answers 200 with the SQLite store up and no relay', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-health-'));
    try {
      const sample = await samples.start({ HTTP_ADAPTER: adapter, SAMPLE_DB: join(dir, 'health.sqlite') });
      const { status, body } = await health(sample);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        status: 'ok',
        details: {
          workflowStore: { status: 'up', store: 'TypeOrmFsmStateStore' },
          transitionRelay: { status: 'up', configured: false },
          // The payment machine has deadlines: this process polls for them.
          deadlines: { status: 'up', active: true, failedPolls: 0, gaveUp: 0 },
        },
      });
    } finally {
      await samples.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const postgres = process.env.TEST_POSTGRES_URL;
  (postgres ? it : it.skip)('answers 503 within the store timeout while PostgreSQL is cut off, and 200 again once it is back', async () => {
    const proxy: TcpProxy = await startProxy(postgres!);
    try {
      const sample = await samples.start({
        HTTP_ADAPTER: adapter,
        DATABASE_URL: proxy.rewrite(postgres!),
        SAMPLE_STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
      });
      const up = await health(sample);
      expect(up.status).toBe(200);
      expect(up.body.details).toMatchObject({
        workflowStore: { status: 'up' },
        transitionRelay: { status: 'up', configured: true, relay: 'PostgresTransitionRelay' },
      });

      proxy.partition();
      const down = await health(sample);
      expect(down.status).toBe(503);
      expect(down.ms).toBeLessThan(STORE_TIMEOUT_MS + SLACK_MS);
      expect(down.body).toMatchObject({
        status: 'error',
        error: { workflowStore: { status: 'down', store: 'TypeOrmFsmStateStore' } },
      });

      proxy.heal();
      expect((await healthUntil(sample, 200)).status).toBe(200);

      await proxy.stop();
      const refused = await health(sample);
      expect(refused.status).toBe(503);
      expect(refused.ms).toBeLessThan(STORE_TIMEOUT_MS + SLACK_MS);
      await proxy.start();
      expect((await healthUntil(sample, 200)).body.details.workflowStore.status).toBe('up');
    } finally {
      await samples.stop();
      proxy.heal();
      await proxy.stop();
    }
  });
});
