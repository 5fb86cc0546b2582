import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientTraceparent } from '../utils/otel-test-sdk.js';
import { OtlpReceiver, type ReceivedSpan } from '../utils/otlp-receiver.js';
import { SAMPLE_MAIN, SampleGroup, startSample } from '../utils/sample-process.js';
import { ensureSampleBuilt } from '../utils/sample-build.js';

/** `--import` of a hook that makes any import of an OpenTelemetry SDK package fail. */
const FORBID_SDK = `--import=${join(process.cwd(), 'test', 'fixtures', 'forbid-otel-sdk.mjs')}`;

// The stdio servers below run the built sample's library.
beforeAll(ensureSampleBuilt, 300_000);
describe('the sample exports traces and metrics to an OTLP/HTTP collector (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let receiver: OtlpReceiver;
  let endpoint: string;
  let samples: SampleGroup;
  let dir: string;

  const otel = (overrides: Record<string, string> = {}) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_METRIC_EXPORT_INTERVAL: '500',
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'sample-e2e',
    ...overrides,
  });

  beforeEach(async () => {
    receiver = new OtlpReceiver();
    endpoint = await receiver.start();
    samples = new SampleGroup();
    dir = mkdtempSync(join(tmpdir(), 'mcp-fsm-otel-'));
  });

  afterEach(async () => {
    await samples.stop();
    await receiver.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const span = (name: string, traceId?: string) => () =>
    receiver.spans.find((received) => received.name === name && (!traceId || received.traceId === traceId));

  it('sends a capture as one trace continued from the client, with the claim and commit inside, and workflow.transitions', async () => {
    const sample = await samples.start({ SAMPLE_DB: join(dir, 'otel.sqlite'), ...otel() });
    const agent = await samples.connect(sample);
    const started = await agent.call('payment.authorize', { amount: 25, currency: 'EUR' });
    const { paymentId } = started.structuredContent as { paymentId: string };
    const parent = clientTraceparent();
    const captured = (await agent.client.callTool({
      name: 'payment.capture',
      arguments: { paymentId },
      _meta: { traceparent: parent.traceparent },
    })) as CallToolResult;
    expect(captured.isError).toBeFalsy();

    const capture = await receiver.waitFor('capture span', span('tools/call payment.capture', parent.traceId));
    expect(capture.parentSpanId).toBe(parent.spanId);
    expect(capture.resource['service.name']).toBe('sample-e2e');
    expect(capture.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'payment.capture',
      'mcp.session.id': agent.transport.sessionId,
      'workflow.machine': 'payment',
      'workflow.state.from': 'authorized',
      'workflow.state.to': 'captured',
    });
    const children = await receiver.waitFor('claim and commit', () => {
      const found = receiver.spans.filter((received: ReceivedSpan) => received.parentSpanId === capture.spanId);
      return found.length === 2 ? found : undefined;
    });
    expect(children.map((child) => child.name).sort()).toEqual(['workflow.claim', 'workflow.commit']);
    expect(JSON.stringify(receiver.spans)).not.toContain(paymentId);

    const committed = await receiver.waitFor('workflow.transitions', () =>
      receiver.points.find(
        (point) =>
          point.metric === 'workflow.transitions' &&
          point.attributes['workflow.event'] === 'CAPTURE' &&
          point.attributes['workflow.outcome'] === 'committed',
      ),
    );
    expect(committed).toMatchObject({ value: 1, attributes: { 'workflow.machine': 'payment' } });
    await receiver.waitFor('mcp.server.operation.duration', () =>
      receiver.points.find(
        (point) => point.metric === 'mcp.server.operation.duration' && point.attributes['gen_ai.tool.name'] === 'payment.capture',
      ),
    );
    expect([...receiver.contentTypes]).toEqual(['application/json']);
  });

  it('flushes what is still batched when it shuts down (SIGTERM)', async () => {
    const sample = await samples.start({
      SAMPLE_DB: join(dir, 'flush.sqlite'),
      ...otel({ OTEL_BSP_SCHEDULE_DELAY: '600000', OTEL_METRIC_EXPORT_INTERVAL: '600000' }),
    });
    const agent = await samples.connect(sample);
    await agent.call('invoice.submit');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.spans).toEqual([]);
    await agent.close();
    await sample.stop('SIGTERM');
    expect(sample.child.exitCode === 0 || sample.child.signalCode === 'SIGTERM').toBe(true);
    expect(span('tools/call invoice.submit')()).toBeDefined();
    expect(
      receiver.points.find((point) => point.metric === 'workflow.transitions' && point.attributes['workflow.event'] === 'SUBMIT'),
    ).toMatchObject({
      value: 1,
    });
    expect(receiver.points.find((point) => point.metric === 'mcp.server.session.duration')).toMatchObject({
      attributes: { 'network.transport': 'tcp', 'mcp.protocol.version': '2025-11-25' },
    });
  });

  it('traces a stdio connection (network.transport pipe) and measures it as a session when the client goes', async () => {
    const client = new Client({ name: 'stdio-otel', version: '1.0.0' });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [SAMPLE_MAIN],
      env: { ...getDefaultEnvironment(), MCP_TRANSPORT: 'stdio', SAMPLE_DB: join(dir, 'stdio.sqlite'), ...otel() },
      stderr: 'ignore',
    });
    await client.connect(transport);
    const parent = clientTraceparent();
    await client.callTool({ name: 'invoice.submit', arguments: {}, _meta: { traceparent: parent.traceparent } });
    const submit = await receiver.waitFor('stdio span', span('tools/call invoice.submit', parent.traceId));
    expect(submit.attributes).toMatchObject({ 'network.transport': 'pipe', 'workflow.state.to': 'review' });
    expect(submit.attributes['mcp.session.id']).toBeUndefined();
    await client.close();
    await receiver.waitFor('the stdio session', () =>
      receiver.points.find((point) => point.metric === 'mcp.server.session.duration' && point.attributes['network.transport'] === 'pipe'),
    );
  });

  it('loads no SDK at all without OTEL_EXPORTER_OTLP_ENDPOINT (and the same process with it would)', async () => {
    const sample = await samples.start({ SAMPLE_DB: join(dir, 'plain.sqlite'), NODE_OPTIONS: FORBID_SDK });
    const agent = await samples.connect(sample);
    expect((await agent.call('invoice.submit')).isError).toBeFalsy();
    await expect(startSample({ SAMPLE_DB: join(dir, 'probe.sqlite'), NODE_OPTIONS: FORBID_SDK, ...otel() })).rejects.toThrow(
      /forbidden in this process: @opentelemetry\/sdk-node/,
    );
  });
});
