import { describeNetworkedTargets } from '../utils/databases.js';
import { RAW_INITIALIZE } from '../utils/http-client.js';
import { postFrom } from '../utils/loopback-post.js';
import { SampleGroup } from '../utils/sample-process.js';
import { startProxy, type TcpProxy } from '../utils/tcp-proxy.js';

describeNetworkedTargets('session-store-down e2e')('initialize while the sample cannot reach $name', ({ url }) => {
  let proxy: TcpProxy;
  let samples: SampleGroup;

  beforeAll(async () => {
    proxy = await startProxy(url!);
    samples = new SampleGroup();
  });

  afterAll(async () => {
    await samples.stop();
    await proxy.stop();
  });

  it('answers 503 with Retry-After, as /health does, opens no session, and opens one as soon as the database is back', async () => {
    const sample = await samples.start({ DATABASE_URL: proxy.rewrite(url!), SAMPLE_STORE_TIMEOUT_MS: '2000' });
    const health = new URL('/health', sample.url);
    expect((await postFrom(sample.url, '127.0.0.1', RAW_INITIALIZE)).status).toBe(200);

    await proxy.stop();
    const refused = await postFrom(sample.url, '127.0.0.1', RAW_INITIALIZE);
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('1');
    expect(refused.sessionId).toBeUndefined();
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: '2.0',
      error: {
        code: -32000,
        message: 'Service Unavailable: a new session cannot be opened right now (its store did not answer); retry the initialize shortly.',
      },
      id: 1,
    });
    expect((await fetch(health)).status).toBe(503);
    expect(sample.stderr()).toMatch(
      /WARN \[McpSessions\] A new session was not opened, the session store failed \(.+\); its initialize gets 503/,
    );
    expect(sample.stderr()).not.toMatch(/ERROR \[McpHttp\] Internal error while serving MCP/);

    await proxy.start();
    let reopened = 0;
    for (let attempt = 0; attempt < 50 && reopened !== 200; attempt++) {
      reopened = (await postFrom(sample.url, '127.0.0.1', RAW_INITIALIZE)).status;
      if (reopened !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(reopened).toBe(200);
  }, 60_000);
});
