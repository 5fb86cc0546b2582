import { DataSource } from 'typeorm';
import { databaseTargets, type DatabaseTarget } from '../utils/databases.js';
import { ACCEPT, connectClient, eventually, postMcp, type TestClient } from '../utils/http-client.js';
import { startRoundRobinProxy, type RoundRobinProxy } from '../utils/round-robin-proxy.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

const targets = databaseTargets('sample replicas behind a round-robin proxy', { networkedOnly: true });
const describeTargets = targets.length
  ? describe.each(targets)
  : describe.skip.each<DatabaseTarget>([{ name: 'no server', options: () => ({ type: 'better-sqlite3', database: ':memory:' }) }]);

/** Idle time after which a session ends everywhere, short enough to watch (in the case that watches it). */
const SESSION_TTL_MS = 2000;
/** The idle time of the other cases: longer than restarting both processes takes on a loaded machine. */
const LONG_SESSION_TTL_MS = 120_000;

describeTargets('two sample processes on one $name, any of them serving any session', ({ url, options }) => {
  let samples: SampleProcess[];
  let proxy: RoundRobinProxy;
  let clients: TestClient[];
  let database: DataSource;

  const env = (ttlMs = LONG_SESSION_TTL_MS) => ({ DATABASE_URL: url!, SAMPLE_SESSION_TTL_MS: String(ttlMs) });
  const connect = async (target: URL, protocolVersion?: string) => {
    const client = await connectClient(target, undefined, { protocolVersion, elicitation: ACCEPT });
    clients.push(client);
    return client;
  };
  const restartBoth = async () => {
    await Promise.all(samples.map((sample) => sample.stop()));
    samples = [await startSample(env())];
    samples.push(await startSample(env()));
    proxy.setTargets(samples.map((sample) => sample.url));
  };
  const authorize = async (client: TestClient) =>
    ((await client.call('payment.authorize', { amount: 10, currency: 'EUR' })).structuredContent as { paymentId: string }).paymentId;
  /** A tools/call of the session `sessionId` sent to `target` without its SDK client (its client's requests go elsewhere). */
  const callAs = async (target: URL, sessionId: string, name: string, args: Record<string, unknown>) => {
    const response = await postMcp(
      target,
      { jsonrpc: '2.0', id: 99, method: 'tools/call', params: { name, arguments: args } },
      { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(response.status).toBe(200);
    return response.text();
  };
  /** Calls a tool and waits for the list_changed it causes. */
  const step = async (client: TestClient, tool: string) => {
    const before = client.listChanged();
    const result = await client.call(tool);
    expect(result.isError).toBeFalsy();
    await eventually(() => client.listChanged() > before);
  };
  /**
   * The confirmed discharge (its client's user says yes): the answer to a 2025-11-25 question
   * must reach the process that asked, so the proxy keeps the session on one process meanwhile
   * (docs/confirmations.md#several-processes).
   */
  const discharge = async (client: TestClient) => {
    proxy.setSticky(true);
    try {
      await step(client, 'invoice.discharge');
    } finally {
      proxy.setSticky(false);
    }
    expect(client.asked.at(-1)?.message).toMatch(/^Discharge invoice INV-/);
  };
  const rows = async (table: string, column: string, value: string) =>
    Number(
      (
        await database.query(`SELECT COUNT(*) AS n FROM ${table} WHERE ${column} = ${database.options.type === 'postgres' ? '$1' : '?'}`, [
          value,
        ])
      )[0].n,
    );

  beforeAll(async () => {
    database = new DataSource(options());
    await database.initialize();
  });

  afterAll(async () => {
    await database.destroy();
  });

  beforeEach(async () => {
    samples = [await startSample(env())];
    samples.push(await startSample(env()));
    proxy = await startRoundRobinProxy(samples.map((sample) => sample.url));
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await proxy.close();
    await Promise.all(samples.map((sample) => sample.stop()));
  });

  it('completes the invoice workflow with requests alternating between them, told of each transition', async () => {
    const client = await connect(proxy.url);
    await step(client, 'invoice.submit');
    expect(await client.names()).toEqual(expect.arrayContaining(['invoice.approve', 'invoice.reject']));
    await step(client, 'invoice.approve');
    expect(await client.names()).toContain('invoice.discharge');
    await discharge(client);
    expect(await client.names()).not.toContain('invoice.discharge');
    expect(new Set(proxy.log.filter((line) => line.startsWith('POST')))).toEqual(new Set(['POST 0', 'POST 1']));
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  const relays = redisUrl ? ['the database', 'Redis'] : ['the database'];

  it.each(relays)('tells a session on one process about a transition made on the other, through %s', async (relay) => {
    if (relay === 'Redis') {
      await Promise.all(samples.map((sample) => sample.stop()));
      samples = [await startSample({ ...env(), REDIS_URL: redisUrl! })];
      samples.push(await startSample({ ...env(), REDIS_URL: redisUrl! }));
    }
    const owner = await connect(samples[0].url);
    const watcher = await connect(samples[1].url);
    const { paymentId } = (await owner.call('payment.authorize', { amount: 4, currency: 'EUR' })).structuredContent as {
      paymentId: string;
    };
    await watcher.call('payment.status', { paymentId });
    expect(await watcher.names()).toContain('payment.capture');
    const before = watcher.listChanged();
    expect((await owner.call('payment.capture', { paymentId })).isError).toBeFalsy();
    await eventually(() => watcher.listChanged() > before, 5000);
    expect(await watcher.names()).toContain('payment.refund');
  });

  it('continues a session after both processes restarted: same session id, no new initialize', async () => {
    const client = await connect(proxy.url);
    await step(client, 'invoice.submit');
    const sessionId = client.transport.sessionId;
    await restartBoth();
    expect(await client.names()).toContain('invoice.approve');
    await step(client, 'invoice.approve');
    await discharge(client);
    expect(client.transport.sessionId).toBe(sessionId);
    expect(await rows('mcp_session', 'id', sessionId!)).toBe(1);
  });

  it.each(['2026-03-01', '2026-07-28'])(
    'serves on both processes, and after both restarted, a session whose client asked for %s (negotiated down to 2025-11-25)',
    async (asked) => {
      const client = await connect(proxy.url, asked);
      expect(client.transport.protocolVersion).toBe('2025-11-25');
      await step(client, 'invoice.submit');
      expect(await client.names()).toContain('invoice.approve');
      const sessionId = client.transport.sessionId;
      await restartBoth();
      await step(client, 'invoice.approve');
      expect(await client.names()).toContain('invoice.discharge');
      await discharge(client);
      expect(client.transport.sessionId).toBe(sessionId);
      expect(new Set(proxy.log.filter((line) => line.startsWith('POST')))).toEqual(new Set(['POST 0', 'POST 1']));
      for (const sample of samples) expect(sample.stderr()).not.toMatch(/cannot be rebuilt|Internal error/);
    },
  );

  it('lists the tools of a handle the session started on the other process, and after both restarted', async () => {
    const client = await connect(proxy.url);
    const paymentId = await authorize(client);
    // Requests alternate: one of these two lists is answered by the process that did not authorize.
    for (let i = 0; i < 2; i++) expect(await client.names()).toContain('payment.capture');
    await restartBoth();
    for (let i = 0; i < 2; i++) expect(await client.names()).toContain('payment.capture');
    expect((await client.call('payment.capture', { paymentId })).isError).toBeFalsy();
    for (let i = 0; i < 2; i++) expect(await client.names()).toContain('payment.refund');
  });

  it('tells a session whose GET stream is on one process about a handle it looked up on the other', async () => {
    const owner = await connect(samples[1].url);
    const watcher = await connect(samples[0].url);
    const watcherId = watcher.transport.sessionId!;
    const paymentId = await authorize(owner);
    await callAs(samples[1].url, watcherId, 'payment.status', { paymentId });
    const before = watcher.listChanged();
    expect((await owner.call('payment.capture', { paymentId })).isError).toBeFalsy();
    await eventually(() => watcher.listChanged() > before, 5000);
    expect(await watcher.names()).toContain('payment.refund');
  });

  it('keeps GET-stream events only for sessions that have a GET stream', async () => {
    const owner = await connect(samples[1].url);
    const watcher = await connect(samples[0].url);
    const paymentId = await authorize(owner);
    const opened = await postMcp(samples[0].url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'no-stream', version: '1' } },
    });
    const streamless = opened.headers.get('mcp-session-id')!;
    await opened.text();
    await (
      await postMcp(
        samples[0].url,
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { 'mcp-session-id': streamless, 'mcp-protocol-version': '2025-11-25' },
      )
    ).text();
    for (const sessionId of [streamless, watcher.transport.sessionId!])
      await callAs(samples[0].url, sessionId, 'payment.status', { paymentId });
    for (const tool of ['payment.capture', 'payment.refund']) {
      const before = watcher.listChanged();
      expect((await owner.call(tool, { paymentId })).isError).toBeFalsy();
      await eventually(() => watcher.listChanged() > before, 5000);
    }
    await eventually(async () => (await rows('mcp_session_event', 'session_id', watcher.transport.sessionId!)) >= 2);
    expect(await rows('mcp_session_event', 'session_id', streamless)).toBe(0);
  });

  it('serves the sessions of a killed process on the other, and removes what nobody continues after the TTL', async () => {
    await Promise.all(samples.map((sample) => sample.stop()));
    samples = [await startSample(env(SESSION_TTL_MS))];
    samples.push(await startSample(env(SESSION_TTL_MS)));
    proxy.setTargets(samples.map((sample) => sample.url));
    const continued = await connect(proxy.url);
    await step(continued, 'invoice.submit');
    const abandoned = await connect(samples[0].url);
    await step(abandoned, 'invoice.submit');
    const abandonedId = abandoned.transport.sessionId!;
    expect(await rows('mcp_session', 'id', abandonedId)).toBe(1);
    await samples[0].stop('SIGKILL');
    proxy.setTargets([samples[1].url]);
    await step(continued, 'invoice.approve');
    // The continued session stays active while the abandoned one idles out: its record, then (in the same sweep) its invoice.
    const abandonedGone = async () =>
      (await rows('mcp_session', 'id', abandonedId)) === 0 &&
      (await rows('mcp_fsm_state', 'handle', `invoice:session:${abandonedId}`)) === 0;
    await eventually(async () => (await continued.names()) && (await abandonedGone()), SESSION_TTL_MS * 4);
    await discharge(continued);
  });
});
