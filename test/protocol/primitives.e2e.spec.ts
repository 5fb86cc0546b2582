import type { INestApplication } from '@nestjs/common';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  McpError,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  type LoggingMessageNotification,
} from '@modelcontextprotocol/sdk/types.js';
import { billingModule } from '../fixtures/billing.app.js';
import { BillingPrimitives, InvoicePrimitives, PaymentPrimitives } from '../fixtures/billing.primitives.js';
import { connectClient, eventually, mcpUrl, type TestClient } from '../utils/http-client.js';
import { listenApp } from '../utils/test-app.js';

/** A client that also counts prompt and resource list_changed notifications and keeps log messages. */
async function connect(url: URL) {
  const agent = await connectClient(url);
  const counts = { prompts: 0, resources: 0 };
  const logs: LoggingMessageNotification['params'][] = [];
  agent.client.setNotificationHandler(PromptListChangedNotificationSchema, () => void (counts.prompts += 1));
  agent.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => void (counts.resources += 1));
  agent.client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  const prompts = async () => (await agent.client.listPrompts()).prompts.map((prompt) => prompt.name);
  const resources = async () => (await agent.client.listResources()).resources.map((resource) => resource.uri);
  const templates = async () => (await agent.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate);
  return { ...agent, counts, logs, prompts, resources, templates };
}

async function refusalOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('prompts and resources behind the gate', () => {
  let app: INestApplication;
  let url: URL;
  let clients: TestClient[];
  const configured: { kind: string; server: Server }[] = [];

  const client = async () => {
    const agent = await connect(url);
    clients.push(agent);
    return agent;
  };
  const capturedPayment = async (agent: TestClient) => {
    const started = await agent.call('payment.authorize', { amount: 12, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    expect((await agent.call('payment.capture', { paymentId })).isError).toBeFalsy();
    return paymentId;
  };

  beforeAll(async () => {
    const module = billingModule({ configureServer: (server, connection) => void configured.push({ kind: connection.kind, server }) });
    module.providers!.push(InvoicePrimitives, PaymentPrimitives, BillingPrimitives);
    app = await listenApp([module]);
    url = await mcpUrl(app);
  });

  beforeEach(() => {
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((agent) => agent.close()));
  });

  afterAll(async () => {
    await app.close();
  });

  it('declares prompts, resources, completions and logging, and hands each connection to configureServer', async () => {
    const agent = await client();
    expect(agent.client.getServerCapabilities()).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
      completions: {},
      logging: {},
    });
    expect(configured.at(-1)?.kind).toBe('stateful');
  });

  it('lists prompts and resources per state, and announces each list that a transition changed', async () => {
    const agent = await client();
    expect(await agent.prompts()).toEqual([]);
    expect(await agent.resources()).toEqual(['billing://invoice/draft-guide', 'billing://policy', 'billing://logo.png']);
    expect(await agent.templates()).toEqual([]);

    await agent.call('invoice.submit');
    await eventually(() => agent.counts.prompts === 1 && agent.counts.resources === 1 && agent.listChanged() === 1);
    expect(await agent.prompts()).toEqual(['invoice.review-checklist']);
    expect(await agent.resources()).toEqual(['billing://policy', 'billing://logo.png']);

    // A transition that changes no prompt or resource announces only the tools.
    await agent.call('invoice.approve');
    await eventually(() => agent.listChanged() === 2);
    expect(agent.counts).toEqual({ prompts: 2, resources: 1 });
  });

  it('gets a prompt in its state, and refuses it elsewhere with FORBIDDEN and the allowed tools', async () => {
    const agent = await client();
    const early = await refusalOf(agent.client.getPrompt({ name: 'invoice.review-checklist' }));
    expect(early.code).toBe(-32602);
    expect(early.message).toContain('FORBIDDEN');
    expect(early.data).toMatchObject({
      code: 'FORBIDDEN',
      machine: 'invoice',
      state: 'draft',
      allowedTools: expect.arrayContaining(['invoice.submit']),
    });

    await agent.call('invoice.submit');
    const prompt = await agent.client.getPrompt({ name: 'invoice.review-checklist' });
    expect(prompt.description).toBe('What to check before approving the invoice');
    expect(prompt.messages).toEqual([
      { role: 'user', content: { type: 'text', text: expect.stringContaining('The invoice is in review.') } },
    ]);
  });

  it('serves handle-keyed prompts and templates for the instance named in the arguments or the URI', async () => {
    const agent = await client();
    const started = await agent.call('payment.authorize', { amount: 5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const receipt = `payment://${paymentId}/receipt`;
    const early = await refusalOf(agent.client.readResource({ uri: receipt }));
    expect(early.data).toMatchObject({ code: 'FORBIDDEN', state: 'authorized' });

    await agent.call('payment.capture', { paymentId });
    expect(await agent.templates()).toEqual(['payment://{paymentId}/receipt']);
    const [dispute] = (await agent.client.listPrompts()).prompts;
    expect(dispute).toMatchObject({
      name: 'payment.dispute',
      arguments: [
        { name: 'reason', description: 'Why the payment is disputed', required: true },
        { name: 'paymentId', required: true },
      ],
    });
    const read = await agent.client.readResource({ uri: receipt });
    expect(read.contents).toEqual([
      { uri: receipt, mimeType: 'application/json', text: JSON.stringify({ paymentId, state: 'captured', uri: receipt }) },
    ]);
    const got = await agent.client.getPrompt({ name: 'payment.dispute', arguments: { paymentId, reason: 'duplicate' } });
    expect(got.messages[0].content).toEqual({ type: 'text', text: `Dispute payment ${paymentId}: duplicate.` });

    const forged = await refusalOf(agent.client.readResource({ uri: 'payment://not-a-handle/receipt' }));
    expect(forged.data).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    const missing = await refusalOf(agent.client.getPrompt({ name: 'payment.dispute', arguments: { paymentId } }));
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain('Invalid arguments for "payment.dispute": reason');
  });

  it('answers unknown prompts and URIs with errors that say where to look', async () => {
    const agent = await client();
    const prompt = await refusalOf(agent.client.getPrompt({ name: 'nope' }));
    expect(prompt.message).toContain('Unknown prompt "nope". Call prompts/list');
    const resource = await refusalOf(agent.client.readResource({ uri: 'billing://nothing' }));
    expect(resource.code).toBe(-32002);
    expect(resource.message).toContain('Resource "billing://nothing" not found.');
  });

  it('reads text and binary resources', async () => {
    const agent = await client();
    expect((await agent.client.readResource({ uri: 'billing://policy' })).contents).toEqual([
      { uri: 'billing://policy', mimeType: 'text/plain', text: 'Invoices above 1,000 EUR need two approvals.' },
    ]);
    expect((await agent.client.readResource({ uri: 'billing://logo.png' })).contents).toEqual([
      { uri: 'billing://logo.png', mimeType: 'image/png', blob: Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64') },
    ]);
  });

  it('completes prompt arguments the session is shown, and nothing for the others', async () => {
    const agent = await client();
    const ref = { type: 'ref/prompt' as const, name: 'payment.dispute' };
    const hidden = await agent.client.complete({ ref, argument: { name: 'reason', value: 'pro' } });
    expect(hidden.completion).toEqual({ values: [], total: 0, hasMore: false });
    await capturedPayment(agent);
    const shown = await agent.client.complete({ ref, argument: { name: 'reason', value: 'pro' } });
    expect(shown.completion).toEqual({ values: ['product not received', 'product unacceptable'], total: 2, hasMore: false });
  });

  it("aborts the handler's signal when the client cancels the call", async () => {
    const agent = await client();
    const controller = new AbortController();
    const call = agent.client.callTool({ name: 'billing.long-export', arguments: {} }, undefined, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort('the user gave up');
    await expect(call).rejects.toThrow();
    const tools = app.get(BillingPrimitives);
    await eventually(() => tools.cancellations.length === 1);
    expect(tools.cancellations[0]).toContain('the user gave up');
  });

  it('sends log messages at or above the level the client set, and progress when asked', async () => {
    const chatty = await client();
    await chatty.call('billing.export');
    await eventually(() => chatty.logs.length === 2);
    expect(chatty.logs.map((log) => log.level)).toEqual(['debug', 'warning']);

    const quiet = await client();
    await quiet.client.setLoggingLevel('warning');
    const progress: { progress: number; total?: number; message?: string }[] = [];
    const result = await quiet.client.callTool({ name: 'billing.export', arguments: {} }, undefined, {
      onprogress: (update) => void progress.push(update),
    });
    expect(result.content).toEqual([{ type: 'text', text: 'exported' }]);
    await eventually(() => quiet.logs.length === 1);
    expect(quiet.logs).toEqual([{ level: 'warning', logger: 'export', data: { rows: 3, skipped: 0 } }]);
    expect(progress).toEqual([
      { progress: 1, total: 3, message: 'batch 1 of 3' },
      { progress: 2, total: 3, message: 'batch 2 of 3' },
      { progress: 3, total: 3, message: 'batch 3 of 3' },
    ]);
  });
});

describe('resource subscriptions', () => {
  let app: INestApplication;
  let url: URL;

  beforeAll(async () => {
    // `Bearer <name>` is the caller <name>; no header is anonymous.
    const authenticate = (req: { headers: Record<string, string | string[] | undefined> }) => {
      const name = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      return name ? { token: name, clientId: name, scopes: [] } : undefined;
    };
    app = await listenApp([
      billingModule({ workflowResources: true, auth: { fromRequest: authenticate }, transports: { http: { direct: true } } }),
    ]);
    url = await mcpUrl(app);
  });

  afterAll(async () => {
    await app.close();
  });

  const watching = async (headers?: Record<string, string>) => {
    const agent = await connectClient(url, headers);
    const updated: string[] = [];
    agent.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
    return { ...agent, updated };
  };

  it('announces an update of a subscribed instance resource when the instance moves, here or from another session', async () => {
    const owner = await watching();
    const watcher = await watching();
    try {
      expect(owner.client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
      const started = await owner.call('payment.authorize', { amount: 7, currency: 'EUR' });
      const { paymentId } = started.structuredContent as { paymentId: string };
      const uri = `workflow://payment/instance/${paymentId}`;
      await owner.client.subscribeResource({ uri });
      await watcher.client.subscribeResource({ uri });
      await owner.client.subscribeResource({ uri: 'workflow://invoice/instance' });

      await owner.call('payment.capture', { paymentId });
      await eventually(() => owner.updated.length === 1 && watcher.updated.length === 1);
      expect(owner.updated).toEqual([uri]);
      expect(watcher.updated).toEqual([uri]);

      await owner.call('invoice.submit');
      await eventually(() => owner.updated.length === 2);
      expect(owner.updated[1]).toBe('workflow://invoice/instance');

      await watcher.client.unsubscribeResource({ uri });
      await owner.call('payment.refund', { paymentId, amount: 7 });
      await eventually(() => owner.updated.length === 3);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(watcher.updated).toEqual([uri]);
    } finally {
      await owner.close();
      await watcher.close();
    }
  });

  it("refuses to subscribe to a forged handle, someone else's, or a URI nobody serves", async () => {
    const alice = await watching({ authorization: 'Bearer alice' });
    const bob = await watching({ authorization: 'Bearer bob' });
    const anonymous = await watching();
    try {
      const started = await alice.call('payment.authorize', { amount: 3, currency: 'EUR' });
      const uri = `workflow://payment/instance/${(started.structuredContent as { paymentId: string }).paymentId}`;
      await alice.client.subscribeResource({ uri });
      for (const other of [bob, anonymous]) {
        const stolen = await refusalOf(other.client.subscribeResource({ uri }));
        expect(stolen.message).toContain('UNKNOWN_HANDLE');
      }
      const forged = await refusalOf(anonymous.client.subscribeResource({ uri: 'workflow://payment/instance/forged' }));
      expect(forged.message).toContain('UNKNOWN_HANDLE');
      const unknown = await refusalOf(anonymous.client.subscribeResource({ uri: 'billing://nothing' }));
      expect(unknown.code).toBe(-32002);
    } finally {
      await Promise.all([alice.close(), bob.close(), anonymous.close()]);
    }
  });
});

describe('an app with tools only', () => {
  it('declares neither prompts nor resources', async () => {
    const app = await listenApp([billingModule()]);
    const agent = await connectClient(await mcpUrl(app));
    try {
      const capabilities = agent.client.getServerCapabilities();
      expect(capabilities).toMatchObject({ tools: { listChanged: true }, logging: {} });
      expect(capabilities?.prompts).toBeUndefined();
      expect(capabilities?.resources).toBeUndefined();
      expect(capabilities?.completions).toBeUndefined();
    } finally {
      await agent.close();
      await app.close();
    }
  });
});

describe('workflow resources (workflowResources: true)', () => {
  let app: INestApplication;
  let agent: TestClient;

  beforeAll(async () => {
    app = await listenApp([billingModule({ workflowResources: true })]);
    agent = await connectClient(await mcpUrl(app));
  });

  afterAll(async () => {
    await agent.close();
    await app.close();
  });

  const read = async (uri: string) =>
    (await agent.client.readResource({ uri })).contents[0] as { uri: string; mimeType?: string; text: string };

  it('lists a diagram per workflow and the caller instance of each', async () => {
    expect((await agent.client.listResources()).resources.map((resource) => [resource.uri, resource.mimeType])).toEqual([
      ['workflow://invoice/diagram', 'text/vnd.mermaid'],
      ['workflow://invoice/instance', 'application/json'],
      ['workflow://payment/diagram', 'text/vnd.mermaid'],
    ]);
    expect((await agent.client.listResourceTemplates()).resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'workflow://payment/instance/{paymentId}',
    ]);
  });

  it('renders the diagram with each transition labelled by the tools that fire it', async () => {
    const diagram = await read('workflow://invoice/diagram');
    expect(diagram.mimeType).toBe('text/vnd.mermaid');
    expect(diagram.text.startsWith('stateDiagram-v2\n')).toBe(true);
    expect(diagram.text).toContain('invoice.approve');
    expect(diagram.text).toContain('invoice.discharge');
  });

  it("shows the session's invoice with its state highlighted, and follows it", async () => {
    const draft = JSON.parse((await read('workflow://invoice/instance')).text) as {
      state: string;
      allowedTools: string[];
      diagram: string;
    };
    expect(draft).toMatchObject({ machine: 'invoice', state: 'draft', context: null, allowedTools: ['invoice.submit', 'invoice.status'] });
    await agent.call('invoice.submit');
    const review = JSON.parse((await read('workflow://invoice/instance')).text) as { state: string; diagram: string };
    expect(review.state).toBe('review');
    expect(review.diagram).not.toBe(draft.diagram);
    expect(review.diagram).toContain('current');
  });

  it('shows a payment by its handle, with its context, and refuses a forged one', async () => {
    const started = await agent.call('payment.authorize', { amount: 9, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const payment = JSON.parse((await read(`workflow://payment/instance/${paymentId}`)).text) as Record<string, unknown>;
    expect(payment).toMatchObject({
      machine: 'payment',
      handle: paymentId,
      state: 'authorized',
      allowedTools: expect.arrayContaining(['payment.capture']),
    });
    expect(payment.context).toMatchObject({ authorized: 9 });
    const forged = await refusalOf(agent.client.readResource({ uri: 'workflow://payment/instance/forged' }));
    expect(forged.data).toMatchObject({ code: 'UNKNOWN_HANDLE', machine: 'payment' });
  });
});
