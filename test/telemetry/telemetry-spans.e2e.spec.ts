import type { INestApplication } from '@nestjs/common';
import { Logger } from '@nestjs/common';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { McpModuleOptions } from '../../lib/index.js';
import { billingModule } from '../fixtures/billing.app.js';
import { confirmModule } from '../fixtures/confirm.app.js';
import { HandlerLog } from '../fixtures/billing.tools.js';
import { ACCEPT, connectClient, mcpUrl, type TestClient } from '../utils/http-client.js';
import { connectModernClient } from '../utils/modern-client.js';
import { clientTraceparent, OtelTestSdk } from '../utils/otel-test-sdk.js';
import { RecordingLogger } from '../utils/recording-logger.js';
import { listenApp } from '../utils/test-app.js';

/** An OpenTelemetry high-resolution time in nanoseconds. */
const nanos = ([seconds, nanoseconds]: [number, number]): bigint => BigInt(seconds) * 1_000_000_000n + BigInt(nanoseconds);

/** The version package.json gives this package: the instrumentation scope's version. */
const PACKAGE_VERSION = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

/** Every name, attribute value, status and event of every span, as text: where a handle must never appear. */
const everyAttributeValue = (spans: ReadableSpan[]): string =>
  spans.map((span) => JSON.stringify([span.name, span.attributes, span.status, span.events, span.links])).join('\n');

describe('telemetry through the real OpenTelemetry SDK (in-memory exporters)', () => {
  const sdk = new OtelTestSdk();
  let app: INestApplication | undefined;
  let agent: TestClient | undefined;

  afterEach(async () => {
    await agent?.close().catch(() => undefined);
    await app?.close();
    app = agent = undefined;
    await sdk.reset();
  });

  afterAll(() => sdk.shutdown());

  async function start(options: Partial<McpModuleOptions> = {}): Promise<TestClient> {
    app = await listenApp([billingModule(options)]);
    agent = await connectClient(await mcpUrl(app));
    return agent;
  }

  async function authorize(client: TestClient): Promise<string> {
    const result = await client.call('payment.authorize', { amount: 25, currency: 'EUR' });
    return (result.structuredContent as { paymentId: string }).paymentId;
  }

  it('traces a capture as one SERVER span continued from the client traceparent in _meta, with the claim and the commit inside', async () => {
    const client = await start();
    const paymentId = await authorize(client);
    const parent = clientTraceparent();
    sdk.spans.reset();

    const result = (await client.client.callTool({
      name: 'payment.capture',
      arguments: { paymentId },
      _meta: { traceparent: parent.traceparent, tracestate: 'vendor=1' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();

    const [span] = sdk.named('tools/call payment.capture');
    expect(span).toBeDefined();
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(parent.traceId);
    expect(span.parentSpanContext?.spanId).toBe(parent.spanId);
    expect(span.parentSpanContext?.traceState?.get('vendor')).toBe('1');
    expect(span.status.code).not.toBe(SpanStatusCode.ERROR);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'payment.capture',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.session.id': client.transport.sessionId,
      'mcp.protocol.version': '2025-11-25',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'network.protocol.version': '1.1',
      'client.address': '127.0.0.1',
      'client.port': expect.any(Number),
      'workflow.machine': 'payment',
      'workflow.event': 'CAPTURE',
      'workflow.state.from': 'authorized',
      'workflow.state.to': 'captured',
    });
    expect(span.attributes['client.port']).toBeGreaterThan(0);
    expect(span.instrumentationScope).toEqual({ name: 'nestjs-mcp-fsm', version: PACKAGE_VERSION, schemaUrl: undefined });
    expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(span.attributes['error.type']).toBeUndefined();
    expect(span.attributes['workflow.refusal.code']).toBeUndefined();

    const children = sdk.childrenOf(span);
    expect(children.map((child) => child.name).sort()).toEqual(['workflow.claim', 'workflow.commit']);
    for (const child of children) {
      expect(child.spanContext().traceId).toBe(parent.traceId);
      expect(child.attributes['workflow.machine']).toBe('payment');
    }
    const claim = children.find((child) => child.name === 'workflow.claim')!;
    const commit = children.find((child) => child.name === 'workflow.commit')!;
    expect(nanos(claim.endTime)).toBeLessThanOrEqual(nanos(commit.startTime));
  });

  it('records the instance as a keyed digest, the same on every call of one payment, and never the handle', async () => {
    const client = await start();
    const paymentId = await authorize(client);
    await client.call('payment.capture', { paymentId });
    await client.call('payment.receipt', { paymentId });
    const spans = sdk.spans.getFinishedSpans();
    const digests = new Set(
      ['tools/call payment.authorize', 'tools/call payment.capture', 'tools/call payment.receipt'].map(
        (name) => sdk.named(name)[0].attributes['workflow.instance.id'],
      ),
    );
    expect(digests.size).toBe(1);
    const [digest] = digests;
    expect(digest).toMatch(/^[0-9a-f]{32}$/);
    expect(everyAttributeValue(spans)).not.toContain(paymentId);
  });

  it('keeps the handle out of a refusal that names it, and out of the URI of a workflow instance resource', async () => {
    const client = await start({ workflowResources: true });
    const paymentId = await authorize(client);
    // Well-formed, so the refusal's text echoes it.
    const forged = `${paymentId.slice(0, 11)}${'Q'.repeat(11)}`;
    const refused = await client.call('payment.capture', { paymentId: forged });
    expect(refused._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'UNKNOWN_HANDLE' });
    expect(JSON.stringify(refused.content)).toContain(forged);
    await client.client.readResource({ uri: `workflow://payment/instance/${paymentId}` });
    const [read] = sdk.named('resources/read');
    const digest = sdk.named('tools/call payment.authorize')[0].attributes['workflow.instance.id'];
    expect(read.attributes['mcp.resource.uri']).toBe(`workflow://payment/instance/${digest}`);
    expect(read.attributes['workflow.instance.id']).toBe(digest);
    expect(everyAttributeValue(sdk.spans.getFinishedSpans())).not.toContain(paymentId);
    expect(everyAttributeValue(sdk.spans.getFinishedSpans())).not.toContain(forged);
  });

  it('records no arguments and no results by default, and both when the options say so', async () => {
    let client = await start();
    let paymentId = await authorize(client);
    await client.call('payment.capture', { paymentId });
    for (const span of sdk.spans.getFinishedSpans()) {
      expect(span.attributes['gen_ai.tool.call.arguments']).toBeUndefined();
      expect(span.attributes['gen_ai.tool.call.result']).toBeUndefined();
    }
    await agent!.close();
    await app!.close();
    sdk.spans.reset();

    client = await start({ telemetry: { recordArguments: true, recordResults: true } });
    paymentId = await authorize(client);
    const [span] = sdk.named('tools/call payment.authorize');
    expect(JSON.parse(span.attributes['gen_ai.tool.call.arguments'] as string)).toEqual({ amount: 25, currency: 'EUR' });
    expect(JSON.parse(span.attributes['gen_ai.tool.call.result'] as string)).toMatchObject({ amount: 25, paymentId });
  });

  it('marks a refusal as error.type tool_error, as the convention says, with its code in workflow.refusal.code, and counts it as a transition outcome', async () => {
    const client = await start();
    const paymentId = await authorize(client);
    await client.call('payment.capture', { paymentId });
    sdk.spans.reset();

    const refused = await client.call('payment.capture', { paymentId });
    expect(refused.isError).toBe(true);
    const [span] = sdk.named('tools/call payment.capture');
    expect(span.attributes).toMatchObject({
      'error.type': 'tool_error',
      'workflow.refusal.code': 'FORBIDDEN',
      'workflow.machine': 'payment',
      'workflow.event': 'CAPTURE',
      'workflow.state.from': 'captured',
    });
    expect(span.attributes['workflow.state.to']).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'FORBIDDEN' });
    expect(sdk.childrenOf(span).map((child) => child.name)).toEqual(['workflow.claim']);

    const transitions = await sdk.metric('workflow.transitions');
    const count = (outcome: string, event = 'CAPTURE') =>
      transitions.find(
        (point) =>
          point.attributes['workflow.machine'] === 'payment' &&
          point.attributes['workflow.event'] === event &&
          point.attributes['workflow.outcome'] === outcome,
      )?.value;
    expect(count('committed')).toBe(1);
    expect(count('FORBIDDEN')).toBe(1);
    expect(count('committed', 'AUTHORIZE')).toBe(1);
  });

  it('marks a tool error result and an unknown handle as tool_error (the refusal code apart), and an unknown tool with the JSON-RPC code', async () => {
    const client = await start();
    const paymentId = await authorize(client);
    app!.get(HandlerLog).failNext = 'throw';
    const failed = await client.call('payment.capture', { paymentId });
    expect(failed.isError).toBe(true);
    const [thrown] = sdk.named('tools/call payment.capture');
    expect(thrown.attributes['error.type']).toBe('tool_error');
    expect(thrown.status.code).toBe(SpanStatusCode.ERROR);

    await client.call('payment.receipt', { paymentId: 'A'.repeat(22) });
    expect(sdk.named('tools/call payment.receipt')[0].attributes).toMatchObject({
      'error.type': 'tool_error',
      'workflow.refusal.code': 'UNKNOWN_HANDLE',
    });

    await expect(client.call('payment.nope', {})).rejects.toThrow();
    const [unknown] = sdk.named('tools/call payment.nope');
    expect(unknown.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
  });

  it('answers a JSON-RPC refusal (gate.refusal: jsonrpc) with its JSON-RPC code as error.type and status code, the refusal code apart', async () => {
    const client = await start({ gate: { refusal: 'jsonrpc' } });
    await expect(client.call('invoice.approve', {})).rejects.toThrow(/FORBIDDEN/);
    const [span] = sdk.named('tools/call invoice.approve');
    expect(span.attributes).toMatchObject({
      'error.type': '-32602',
      'rpc.response.status_code': '-32602',
      'workflow.machine': 'invoice',
      'workflow.refusal.code': 'FORBIDDEN',
    });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'FORBIDDEN' });
  });

  it('spans every method, the SDK own ones included, named by the method alone when there is no target', async () => {
    const client = await start();
    await client.client.listTools();
    await client.client.ping();
    expect(sdk.named('initialize')).toHaveLength(1);
    // The version initialize negotiated, on its own span too.
    expect(sdk.named('initialize')[0].attributes).toMatchObject({ 'mcp.method.name': 'initialize', 'mcp.protocol.version': '2025-11-25' });
    expect(sdk.named('tools/list')[0].attributes).toMatchObject({ 'mcp.method.name': 'tools/list', 'mcp.protocol.version': '2025-11-25' });
    expect(sdk.named('ping')).toHaveLength(1);
  });

  it('measures mcp.server.operation.duration by method, tool and error.type, and mcp.server.session.duration when a session ends', async () => {
    const client = await start();
    const paymentId = await authorize(client);
    await client.call('payment.capture', { paymentId });
    await client.call('payment.capture', { paymentId });
    const durations = await sdk.metric('mcp.server.operation.duration');
    const captures = durations.filter((point) => point.attributes['gen_ai.tool.name'] === 'payment.capture');
    expect(captures.map((point) => point.attributes['error.type']).sort()).toEqual(['tool_error', undefined]);
    for (const point of captures) {
      expect(point.attributes['mcp.method.name']).toBe('tools/call');
      expect((point.value as { count: number }).count).toBe(1);
      expect(point.attributes['mcp.session.id']).toBeUndefined();
      expect(point.attributes['network.protocol.version']).toBe('1.1');
      // High cardinality: on spans only.
      expect(point.attributes['client.address']).toBeUndefined();
    }

    await client.transport.terminateSession();
    await client.close();
    agent = undefined;
    let sessions = await sdk.metric('mcp.server.session.duration');
    for (let tries = 0; sessions.length === 0 && tries < 50; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      sessions = await sdk.metric('mcp.server.session.duration');
    }
    expect(sessions).toHaveLength(1);
    expect(sessions[0].attributes).toEqual({
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.protocol.version': '2025-11-25',
    });
    expect((sessions[0].value as { count: number }).count).toBe(1);
  });

  it('traces 2026-07-28 requests the same way, continued from _meta', async () => {
    app = await listenApp([billingModule()]);
    const modern = await connectModernClient(await mcpUrl(app));
    try {
      const authorized = await modern.callTool({ name: 'payment.authorize', arguments: { amount: 5, currency: 'EUR' } });
      const paymentId = (authorized.structuredContent as { paymentId: string }).paymentId;
      const parent = clientTraceparent();
      sdk.spans.reset();
      await modern.callTool({ name: 'payment.capture', arguments: { paymentId }, _meta: { traceparent: parent.traceparent } });
      const [span] = sdk.named('tools/call payment.capture');
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.spanContext().traceId).toBe(parent.traceId);
      expect(span.parentSpanContext?.spanId).toBe(parent.spanId);
      expect(span.attributes).toMatchObject({
        'mcp.method.name': 'tools/call',
        'mcp.protocol.version': '2026-07-28',
        'network.protocol.version': '1.1',
        'client.address': '127.0.0.1',
        'client.port': expect.any(Number),
        'workflow.state.from': 'authorized',
        'workflow.state.to': 'captured',
      });
      expect(span.attributes['mcp.session.id']).toBeUndefined();
      expect(
        sdk
          .childrenOf(span)
          .map((child) => child.name)
          .sort(),
      ).toEqual(['workflow.claim', 'workflow.commit']);
      expect(everyAttributeValue(sdk.spans.getFinishedSpans())).not.toContain(paymentId);
    } finally {
      await modern.close();
    }
  });

  it('continues the trace of the HTTP request headers when _meta has none', async () => {
    const parent = clientTraceparent();
    app = await listenApp([billingModule()]);
    agent = await connectClient(await mcpUrl(app), { traceparent: parent.traceparent });
    sdk.spans.reset();
    await agent.call('invoice.status');
    const [span] = sdk.named('tools/call invoice.status');
    expect(span.spanContext().traceId).toBe(parent.traceId);
    expect(span.parentSpanContext?.spanId).toBe(parent.spanId);
  });

  it('links the HTTP server span active around the request when _meta carries the client context, and is its child otherwise', async () => {
    const http = trace.getTracer('http-instrumentation');
    app = await listenApp([billingModule()], {
      configure: (nest) => {
        // What an HTTP instrumentation does: a SERVER span for the request, active while it is served.
        nest.use((_request: unknown, response: { on: (event: 'finish', listener: () => void) => void }, next: () => void) => {
          const span = http.startSpan('POST /mcp', { kind: SpanKind.SERVER });
          response.on('finish', () => span.end());
          context.with(trace.setSpan(context.active(), span), next);
        });
      },
    });
    agent = await connectClient(await mcpUrl(app));
    const parent = clientTraceparent();
    await agent.client.callTool({ name: 'invoice.status', arguments: {}, _meta: { traceparent: parent.traceparent } });
    await agent.call('invoice.submit');
    await new Promise((resolve) => setTimeout(resolve, 50));

    const [status] = sdk.named('tools/call invoice.status');
    expect(status.parentSpanContext?.spanId).toBe(parent.spanId);
    const httpSpans = sdk.named('POST /mcp');
    expect(status.links).toHaveLength(1);
    expect(httpSpans.map((span) => span.spanContext().spanId)).toContain(status.links[0].context.spanId);

    const [submit] = sdk.named('tools/call invoice.submit');
    const carrier = httpSpans.find((span) => span.spanContext().spanId === submit.parentSpanContext?.spanId);
    expect(carrier).toBeDefined();
    expect(submit.spanContext().traceId).toBe(carrier!.spanContext().traceId);
    expect(submit.links).toEqual([]);
  });

  it('spans a confirmed transition the person declined as DECLINED, and one they accepted as committed, each counted once', async () => {
    app = await listenApp([confirmModule()]);
    const url = await mcpUrl(app);
    const declining = await connectClient(url, undefined, { elicitation: { action: 'decline' } });
    try {
      expect((await declining.call('payout.discharge'))._meta?.['nestjs-mcp-fsm/error']).toMatchObject({ code: 'DECLINED' });
    } finally {
      await declining.close();
    }
    agent = await connectClient(url, undefined, { elicitation: ACCEPT });
    expect((await agent.call('payout.discharge')).isError).toBeFalsy();

    const [declined, accepted] = sdk.named('tools/call payout.discharge');
    expect(declined.attributes).toMatchObject({
      'error.type': 'tool_error',
      'workflow.refusal.code': 'DECLINED',
      'workflow.event': 'DISCHARGE',
    });
    expect(accepted.attributes).toMatchObject({ 'workflow.state.from': 'approved', 'workflow.state.to': 'discharged' });
    expect(accepted.attributes['error.type']).toBeUndefined();
    const outcomes = (await sdk.metric('workflow.transitions')).map((point) => [point.attributes['workflow.outcome'], point.value]);
    expect(outcomes.sort()).toEqual([
      ['DECLINED', 1],
      ['committed', 1],
    ]);
  });

  it('counts a 2026-07-28 confirmation once, on the call that carries the answer, not on the question', async () => {
    const authenticate = (req: IncomingMessage) => (req.headers.authorization ? { token: 't', clientId: 'alice', scopes: [] } : undefined);
    app = await listenApp([confirmModule({ auth: { fromRequest: authenticate } })]);
    const client = new V2Client(
      { name: 'confirm-otel', version: '1.0.0' },
      { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: {} }) as never);
    await client.connect(new V2Transport(await mcpUrl(app), { requestInit: { headers: { authorization: 'Bearer alice' } } }));
    try {
      expect((await client.callTool({ name: 'payout.discharge', arguments: {} })).isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const [question, answered] = sdk.named('tools/call payout.discharge');
    expect(question.attributes['error.type']).toBeUndefined();
    expect(question.attributes['workflow.state.to']).toBeUndefined();
    expect(answered.attributes).toMatchObject({ 'workflow.state.from': 'approved', 'workflow.state.to': 'discharged' });
    const outcomes = (await sdk.metric('workflow.transitions')).map((point) => [point.attributes['workflow.outcome'], point.value]);
    expect(outcomes).toEqual([['committed', 1]]);
  });

  it('records nothing with telemetry.enabled: false', async () => {
    const client = await start({ telemetry: { enabled: false } });
    await authorize(client);
    expect(sdk.spans.getFinishedSpans()).toEqual([]);
  });

  it('logs a refusal and a handler failure with the error id the client saw and the trace id of the call', async () => {
    const client = await start();
    // After the app is created: `logger: false` overrides Nest's logger there.
    const logger = new RecordingLogger();
    Logger.overrideLogger(logger);
    try {
      const parent = clientTraceparent();
      const refused = (await client.client.callTool({
        name: 'invoice.approve',
        arguments: {},
        _meta: { traceparent: parent.traceparent },
      })) as CallToolResult;
      const { errorId } = refused._meta?.['nestjs-mcp-fsm/error'] as { errorId: string };
      expect(errorId).toMatch(/^[0-9a-f]{12}$/);
      expect(
        logger.matching('log', new RegExp(`"invoice\\.approve" refused: FORBIDDEN \\(error id ${errorId}, trace ${parent.traceId}\\)`)),
      ).toHaveLength(1);

      app!.get(HandlerLog).failNext = 'throw';
      const failed = (await client.client.callTool({
        name: 'invoice.submit',
        arguments: {},
        _meta: { traceparent: parent.traceparent },
      })) as CallToolResult;
      const [, failureId] = /error id ([0-9a-f]{12})/.exec((failed.content[0] as { text: string }).text)!;
      expect(
        logger.matching('error', new RegExp(`"invoice\\.submit" failed \\(error id ${failureId}, trace ${parent.traceId}\\)`)),
      ).toHaveLength(1);
    } finally {
      Logger.overrideLogger(false as never);
    }
  });
});
