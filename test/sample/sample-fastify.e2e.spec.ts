import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ACCEPT, connectClient, eventually, textOf, type TestClient } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { startSample, type SampleProcess } from '../utils/sample-process.js';

describe('the sample on Fastify (HTTP_ADAPTER=fastify)', () => {
  let dir: string;
  let sample: SampleProcess;
  let clients: TestClient[];

  const connect = async (headers?: Record<string, string>) => {
    const client = await connectClient(sample.url, headers, { elicitation: ACCEPT });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-sample-'));
    sample = await startSample({ SAMPLE_DB: join(dir, 'sample.sqlite'), HTTP_ADAPTER: 'fastify', SAMPLE_AUTH: 'optional' });
    clients = [];
  });

  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
    await sample.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('walks the invoice workflow: menus per state, FORBIDDEN, list_changed', async () => {
    const agent = await connect();
    expect(await agent.names()).toEqual(['invoice.submit', 'invoice.status', 'payment.authorize', 'payment.status']);
    const early = await agent.call('invoice.discharge');
    expect(textOf(early)).toBe(
      'FORBIDDEN: "invoice.discharge" is not available while invoice is "draft". Allowed now: invoice.submit, invoice.status.',
    );
    await agent.call('invoice.submit');
    await eventually(() => agent.listChanged() === 1);
    await agent.call('invoice.approve');
    await agent.call('invoice.discharge');
    expect(agent.asked).toHaveLength(1);
    const history = (await agent.call('invoice.status')).structuredContent as { state: string; history: { event: string }[] };
    expect(history.state).toBe('discharged');
    expect(history.history.map((row) => row.event)).toEqual(['SUBMIT', 'APPROVE', 'DISCHARGE']);
    await agent.transport.terminateSession();
    expect(sample.stderr()).toMatch(/MCP endpoint: http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(sample.stderr()).not.toMatch(/ERROR/);
  });

  it('takes the caller from the demo bearer middleware: a payment stays with the client that started it', async () => {
    const alice = await connect({ Authorization: 'Bearer alice' });
    const started = await alice.call('payment.authorize', { amount: 12.5, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const bob = await connect({ Authorization: 'Bearer bob' });
    const refused = await bob.call('payment.capture', { paymentId });
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE', tool: 'payment.capture' });
    expect((await alice.call('payment.capture', { paymentId })).isError).toBeFalsy();
  });

  it('serves a 2026-07-28 client on the same Fastify route', async () => {
    const modern = await connectModernClient(sample.url, { authorization: 'Bearer alice' });
    try {
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const submitted = await modern.callTool({ name: 'invoice.submit', arguments: {} });
      expect(submitted._meta?.['nestjs-mcp-fsm/state']).toMatchObject({ state: 'review' });
    } finally {
      await modern.close();
    }
  });
});
