import type { INestApplication } from '@nestjs/common';
import { InMemoryFsmStateStore, McpWorkflowService, type McpModuleOptions } from '../../lib/index.js';
import { ordersModule } from '../fixtures/orders.app.js';
import { connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { OtelTestSdk } from '../utils/otel-test-sdk.js';
import { listenApp } from '../utils/test-app.js';

/** `McpWorkflowService.end` is a call of the gate like any other (issue 40): telemetry sees it as one. */
describe('telemetry of McpWorkflowService.end', () => {
  const sdk = new OtelTestSdk();
  let app: INestApplication;
  let client: TestClient;
  let store: InMemoryFsmStateStore;

  beforeEach(async () => {
    store = new InMemoryFsmStateStore({ history: true });
    app = await listenApp([ordersModule({ store } as Partial<McpModuleOptions>)]);
    client = await connectClient(await mcpUrl(app));
  });

  afterEach(async () => {
    await client.close().catch(() => undefined);
    await app.close();
    await sdk.reset();
  });

  afterAll(() => sdk.shutdown());

  const place = async () => ((await client.call('order.place')).structuredContent as { orderId: string }).orderId;

  it("spans a handler's end of its own instance inside its call: the claim and the commit of the end, and event mcp.end", async () => {
    const orderId = await place();
    sdk.spans.reset();
    expect((await client.call('order.cancel', { orderId })).structuredContent).toEqual({ ended: true });

    const [span] = sdk.named('tools/call order.cancel');
    expect(span).toBeDefined();
    expect(span.attributes).toMatchObject({ 'workflow.machine': 'order', 'workflow.event': 'mcp.end', 'workflow.state.from': 'placed' });
    expect(span.attributes['workflow.refusal.code']).toBeUndefined();
    const children = sdk.childrenOf(span);
    expect(children.map((child) => child.name).sort()).toEqual(['workflow.claim', 'workflow.commit']);
    for (const child of children) expect(child.attributes['workflow.machine']).toBe('order');
    expect(await sdk.metric('workflow.transitions')).toEqual([
      expect.objectContaining({
        attributes: { 'workflow.machine': 'order', 'workflow.event': 'mcp.end', 'workflow.outcome': 'committed' },
      }),
    ]);
  });

  it("counts an end from the app's own code as a committed mcp.end transition", async () => {
    const orderId = await place();
    await sdk.metric('workflow.transitions');
    expect(await app.get(McpWorkflowService).end({ machine: 'order', handle: orderId }, { actor: 'ops:olivia' })).toBe(true);
    expect(await sdk.metric('workflow.transitions')).toEqual([
      expect.objectContaining({
        value: 1,
        attributes: { 'workflow.machine': 'order', 'workflow.event': 'mcp.end', 'workflow.outcome': 'committed' },
      }),
    ]);
    expect((await store.history(`order:${orderId}`)).at(-1)).toMatchObject({ event: 'mcp.end', principal: 'ops:olivia' });
  });
});
