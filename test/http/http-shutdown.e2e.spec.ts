import type { INestApplication } from '@nestjs/common';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryFsmStateStore, type McpHttpTransportOptions } from '../../lib/index.js';
import { formatInstanceKey } from '../../lib/stores/fsm-instance-key.js';
import { billingModule } from '../fixtures/billing.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { connectClient, eventually, mcpUrl, postMcp, RAW_INITIALIZE, type TestClient } from '../utils/http-client.js';
import { listenApp, type HttpAdapterName } from '../utils/test-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The in-memory store with commits that take `commitDelayMs`, like a database under load. */
class SlowCommitStore extends InMemoryFsmStateStore {
  commitDelayMs = 0;

  override async commit(...args: Parameters<InMemoryFsmStateStore['commit']>): ReturnType<InMemoryFsmStateStore['commit']> {
    await sleep(this.commitDelayMs);
    return super.commit(...args);
  }
}

const ROUTES: { name: string; adapter: HttpAdapterName; http: McpHttpTransportOptions }[] = [
  { name: 'Express', adapter: 'express', http: {} },
  { name: 'Fastify', adapter: 'fastify', http: {} },
  { name: 'the direct route', adapter: 'express', http: { direct: true } },
];

describe.each(ROUTES)('graceful shutdown (app.close) on $name', ({ adapter, http }) => {
  let store: SlowCommitStore;
  let apps: INestApplication[];
  let clients: TestClient[];

  const startApp = async (drainMs: number) => {
    const app = await listenApp([billingModule({ store, transports: { http: { ...http, drainMs } } })], { adapter });
    apps.push(app);
    return app;
  };
  const connect = async (app: INestApplication) => {
    const client = await connectClient(await mcpUrl(app));
    clients.push(client);
    return client;
  };
  const authorize = async (client: TestClient) =>
    (await client.call('payment.authorize', { amount: 10, currency: 'EUR' })).structuredContent as { paymentId: string };
  // Shut down only once the call is in the handler: a request still on its way would be refused, not drained.
  const handlerStarted = (app: INestApplication, tool: string) => eventually(() => app.get(HandlerLog).started.includes(tool), 5000);
  const stateOf = async (paymentId: string) =>
    (await store.load(formatInstanceKey({ machine: 'payment', scope: 'handle', id: paymentId })))?.state;

  beforeEach(() => {
    store = new SlowCommitStore();
    apps = [];
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await Promise.all(apps.map((app) => app.close()));
    store.onApplicationShutdown();
  });

  it('lets a call in flight finish and deliver its result, and answers new requests with 503 meanwhile', async () => {
    const app = await startApp(10_000);
    const url = await mcpUrl(app);
    const client = await connect(app);
    const { paymentId } = await authorize(client);
    app.get(HandlerLog).delayMs = 800;
    const capture = client.call('payment.capture', { paymentId });
    await handlerStarted(app, 'payment.capture');
    const closing = app.close();

    let refused: Response | undefined;
    await eventually(async () => {
      const response = await postMcp(url, RAW_INITIALIZE);
      if (response.status !== 503) {
        await response.body?.cancel();
        return false;
      }
      refused = response;
      return true;
    }, 600);
    expect(refused!.headers.get('retry-after')).toBe('1');
    expect(await refused!.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32000 } });

    const result = await capture;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ captured: paymentId });
    await closing;
    expect(await stateOf(paymentId)).toBe('captured');
  });

  it('delivers the result of a call whose commit began before the drain ran out', async () => {
    const app = await startApp(500);
    const client = await connect(app);
    const { paymentId } = await authorize(client);
    app.get(HandlerLog).delayMs = 300;
    store.commitDelayMs = 1000;
    const capture = client.call('payment.capture', { paymentId });
    await handlerStarted(app, 'payment.capture');
    const closing = app.close();

    const result = await capture;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ captured: paymentId });
    await closing;
    expect(await stateOf(paymentId)).toBe('captured');
  });

  it('abandons a call that outlives the drain: a JSON-RPC error at the deadline, its claim let go at once, nothing stored when the handler returns late', async () => {
    const app = await startApp(200);
    const client = await connect(app);
    const { paymentId } = await authorize(client);
    const log = app.get(HandlerLog);
    log.delayMs = 1500;
    const capture = client.call('payment.capture', { paymentId }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await handlerStarted(app, 'payment.capture');
    const closing = app.close();

    const error = await capture;
    expect(error).toBeInstanceOf(McpError);
    expect(error).toMatchObject({ code: -32000, message: expect.stringMatching(/shut down before the call finished/) });
    // The handler still runs, but the instance is free for another process already.
    expect(log.count('payment.capture')).toBe(0);
    const handle = formatInstanceKey({ machine: 'payment', scope: 'handle', id: paymentId });
    const probe = await store.claim({ key: handle, allowedStates: ['authorized'], token: 'probe', leaseMs: 1000 });
    expect(probe.status).toBe('claimed');
    await store.release(handle, 'probe');

    await eventually(() => log.count('payment.capture') === 1, 3000);
    await closing;
    await sleep(50);
    expect(await stateOf(paymentId)).toBe('authorized');

    const other = await connect(await startApp(200));
    const captured = await other.call('payment.capture', { paymentId });
    expect(captured.isError).toBeFalsy();
    expect(await stateOf(paymentId)).toBe('captured');
  });
});
