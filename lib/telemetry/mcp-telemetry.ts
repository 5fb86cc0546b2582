import type { IncomingMessage } from 'node:http';
import type { Attributes, Context, Histogram, Span, TextMapGetter, Tracer, TracerProvider } from '@opentelemetry/api';
import { SILENT_GATE_OBSERVER, type WorkflowGateObserver } from '../gating/workflow-gate-observer.interface.js';
import { MCP_ERROR_META_KEY, PACKAGE_VERSION } from '../mcp.constants.js';
import type { McpResolvedTelemetryOptions } from './telemetry-options.interface.js';
import { formatInstanceKey } from '../stores/fsm-instance-key.js';
import { instanceDigest } from './instance-digest.js';
import { loadOtelApi, type OtelApi } from './otel-api.loader.js';
import * as names from './telemetry.names.js';
import { WorkflowGateTelemetry } from './workflow-gate.telemetry.js';

/** One MCP request as the protocol layer of either era hands it to {@link McpTelemetry.serve}. */
interface McpTracedRequest {
  method: string;
  params: unknown;
  /** The JSON-RPC id (absent for a notification). */
  requestId: string | number | undefined;
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  /** `pipe` for stdio, `tcp` for HTTP (the convention's `network.transport`). */
  transport: 'pipe' | 'tcp';
  /** The HTTP request's headers (Node's or the Fetch API's): where the trace context comes from when `params._meta` has none. */
  headers?: McpRequestHeaders;
  /** The Node HTTP request that carried it, when the transport knows it: the client's address and port, the HTTP version. */
  http?: Pick<IncomingMessage, 'socket' | 'httpVersion'>;
}

/** Request headers as Node (lower-case names) or the Fetch API gives them. */
type McpRequestHeaders = Record<string, string | string[] | undefined> | Headers;

/** Which connections `mcp.server.session.duration` measures. */
type McpMeasuredSessionKind = 'stateful' | 'stdio';

/** Reads `traceparent`, `tracestate` and `baggage` from a request's `params._meta`, unprefixed as the convention says. */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = carrier[key];
    return typeof value === 'string' ? value : undefined;
  },
};

/** Reads trace context from an HTTP request's headers. */
const HEADERS_GETTER: TextMapGetter<McpRequestHeaders> = {
  keys: (carrier) => (carrier instanceof Headers ? [...carrier.keys()] : Object.keys(carrier)),
  get: (carrier, key) => {
    if (carrier instanceof Headers) {
      return carrier.get(key) ?? undefined;
    }
    const value = carrier[key];
    return Array.isArray(value) ? value[0] : value;
  },
};

/** How a handler settled: its result (a `CallToolResult`, for a tool), or what it threw. */
type Settled = { ok: true; result: unknown } | { ok: false; error: unknown };

/**
 * The module's traces and metrics, through `@opentelemetry/api` only (an optional peer): one
 * SERVER span per MCP request as the OpenTelemetry MCP conventions name and describe it, the
 * gate's claim and commit as its children, `mcp.server.operation.duration`,
 * `mcp.server.session.duration` and `workflow.transitions`. Without the API, or with
 * `telemetry.enabled: false`, every method only runs what it wraps. Spans, attributes and
 * metrics: docs/observability.md.
 */
export class McpTelemetry {
  /** Telemetry that records nothing. */
  static readonly off = new McpTelemetry(undefined, undefined);

  /** What the gate reports a call to. */
  readonly gate: WorkflowGateObserver;
  private readonly tracer?: Tracer;
  private readonly operationDuration?: Histogram;
  private readonly sessionDuration?: Histogram;
  private readonly serverSpanKey?: symbol;
  /** Whether the meter records (a meter provider was registered before the app started). */
  private readonly measures: boolean = false;
  private tracerSeen = false;
  /**
   * The API's global tracer provider, taken once: a proxy that an SDK's provider becomes the
   * delegate of when it registers (`trace.setGlobalTracerProvider`), so asking it is enough.
   */
  private readonly tracerProvider?: TracerProvider;

  private constructor(
    private readonly api: OtelApi | undefined,
    private readonly options: McpResolvedTelemetryOptions | undefined,
  ) {
    if (!api || !options) {
      this.gate = SILENT_GATE_OBSERVER;
      return;
    }
    this.tracerProvider = api.trace.getTracerProvider();
    this.tracer = api.trace.getTracer(names.INSTRUMENTATION_SCOPE, PACKAGE_VERSION);
    const meter = api.metrics.getMeter(names.INSTRUMENTATION_SCOPE, PACKAGE_VERSION);
    const advice = { explicitBucketBoundaries: names.DURATION_BUCKETS };
    this.operationDuration = meter.createHistogram(names.MCP_SERVER_OPERATION_DURATION, {
      unit: 's',
      description: 'The duration of the MCP request or notification as observed on the receiver.',
      advice,
    });
    this.sessionDuration = meter.createHistogram(names.MCP_SERVER_SESSION_DURATION, {
      unit: 's',
      description: 'The duration of the MCP session as observed on the MCP server.',
      advice,
    });
    const transitions = meter.createCounter(names.WORKFLOW_TRANSITIONS, {
      unit: '{transition}',
      valueType: api.ValueType.INT,
      description: 'Calls of tools that fire a workflow event, by machine, event and outcome (committed, or the refusal code).',
    });
    // The API hands out no-op instruments, for good, when no meter provider is registered yet.
    this.measures = this.operationDuration.constructor !== api.createNoopMeter().createHistogram('').constructor;
    const serverSpanKey = api.createContextKey('nestjs-mcp-fsm server span');
    this.serverSpanKey = serverSpanKey;
    this.gate = new WorkflowGateTelemetry({
      api,
      tracer: this.tracer,
      transitions,
      measures: this.measures,
      tracing: this.tracerRegistered,
      serverSpanKey,
      digestKey: options.instanceDigestKey,
    });
  }

  /**
   * The module's telemetry for `options`: the API is imported once, when enabled; its tracer
   * and meter are taken now, so an SDK must be registered before the app is created (a
   * tracer provider registered later is still used; a meter provider is not).
   */
  static async create(options: McpResolvedTelemetryOptions): Promise<McpTelemetry> {
    const api = options.enabled ? await loadOtelApi() : undefined;
    return api ? new McpTelemetry(api, options) : McpTelemetry.off;
  }

  /**
   * Runs the handler of one request in its SERVER span, continued from the client's trace
   * context (`params._meta`, else the HTTP request's headers), and records its duration. With
   * the API but no SDK registered it runs the handler alone: no span, no attributes (measured
   * in docs/observability.md#what-it-costs).
   */
  serve<T>(request: McpTracedRequest, run: () => Promise<T>): Promise<T> {
    const { api, tracer } = this;
    if (!api || !tracer || !this.records()) {
      return run();
    }
    const tracing = this.tracerRegistered();
    const started = performance.now();
    const target = targetOf(request.method, request.params);
    let span: Span | undefined;
    let work: Promise<T>;
    try {
      const parent = tracing ? this.parentOf(api, request) : undefined;
      span =
        parent &&
        tracer.startSpan(
          target ? `${request.method} ${target}` : request.method,
          { kind: api.SpanKind.SERVER, attributes: this.spanAttributes(request, target) },
          parent.context,
        );
      if (parent && span?.isRecording()) {
        if (parent.link) span.addLink({ context: parent.link });
        work = api.context.with(api.trace.setSpan(parent.context, span).setValue(this.serverSpanKey!, span), run);
      } else {
        work = run();
      }
    } catch (error) {
      work = Promise.reject(error);
    }
    return work.then(
      (result) => {
        this.finish(span, request, target, started, { ok: true, result });
        return result;
      },
      (error: unknown) => {
        this.finish(span, request, target, started, { ok: false, error });
        throw error;
      },
    );
  }

  /**
   * Whether {@link serve} records anything (a tracer provider or a meter provider is registered):
   * when not, a caller may run a request's handler without describing the request.
   */
  records(): boolean {
    return this.tracer !== undefined && (this.tracerRegistered() || this.measures);
  }

  /**
   * Starts measuring a stateful session or a stdio connection (`mcp.server.session.duration`);
   * the returned function ends it, once, when the connection closes. `protocolVersion` is read
   * then (it is negotiated after the connection opens).
   */
  openSession(kind: McpMeasuredSessionKind, protocolVersion: () => string | undefined): () => void {
    const histogram = this.sessionDuration;
    if (!histogram || !this.measures) {
      return () => undefined;
    }
    const started = performance.now();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const attributes: Attributes = { [names.NETWORK_TRANSPORT]: kind === 'stdio' ? 'pipe' : 'tcp' };
      if (kind === 'stateful') attributes[names.NETWORK_PROTOCOL_NAME] = 'http';
      const version = protocolVersion();
      if (version) attributes[names.MCP_PROTOCOL_VERSION] = version;
      histogram.record((performance.now() - started) / 1000, attributes);
    };
  }

  /**
   * The parent of a request's span: the trace context in `params._meta` (the ambient context,
   * an HTTP server span say, then becomes a link), else the ambient one, else the HTTP headers'.
   */
  private parentOf(api: OtelApi, request: McpTracedRequest): { context: Context; link?: ReturnType<Span['spanContext']> } {
    const active = api.context.active();
    const meta = metaOf(request.params);
    if (meta && typeof meta.traceparent === 'string') {
      const ambient = api.trace.getSpanContext(active);
      return {
        context: api.propagation.extract(active, meta, META_GETTER),
        link: ambient && api.isSpanContextValid(ambient) ? ambient : undefined,
      };
    }
    if (request.headers && !api.trace.getSpanContext(active)) {
      return { context: api.propagation.extract(active, request.headers, HEADERS_GETTER) };
    }
    return { context: active };
  }

  private spanAttributes(request: McpTracedRequest, target: string | undefined): Attributes {
    const attributes = this.commonAttributes(request, target);
    if (request.requestId !== undefined && request.requestId !== null) attributes[names.JSONRPC_REQUEST_ID] = String(request.requestId);
    if (request.sessionId) attributes[names.MCP_SESSION_ID] = request.sessionId;
    const socket = request.http?.socket;
    if (socket?.remoteAddress) {
      attributes[names.CLIENT_ADDRESS] = socket.remoteAddress;
      if (socket.remotePort !== undefined) attributes[names.CLIENT_PORT] = socket.remotePort;
    }
    const uri = (request.params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri === 'string') attributes[names.MCP_RESOURCE_URI] = this.withoutHandle(uri);
    if (this.options!.recordArguments && request.method === 'tools/call') {
      attributes[names.GEN_AI_TOOL_CALL_ARGUMENTS] = JSON.stringify((request.params as { arguments?: unknown }).arguments ?? {});
    }
    return attributes;
  }

  /**
   * `uri`, except that the handle in a workflow instance resource's URI
   * (`workflow://payment/instance/<handle>`) is replaced by the instance's digest, as in
   * `workflow.instance.id`: a handle is a bearer capability.
   */
  private withoutHandle(uri: string): string {
    const match = WORKFLOW_INSTANCE_URI.exec(uri);
    if (!match) {
      return uri;
    }
    const [, machine, handle] = match;
    const storeKey = formatInstanceKey({ machine, scope: 'handle', id: safeDecode(handle) });
    return `workflow://${machine}/instance/${instanceDigest(this.options!.instanceDigestKey, storeKey)}`;
  }

  /** What the span and the duration metric share (low cardinality). */
  private commonAttributes(request: McpTracedRequest, target: string | undefined): Attributes {
    const attributes: Attributes = { [names.MCP_METHOD_NAME]: request.method, [names.NETWORK_TRANSPORT]: request.transport };
    if (request.method === 'tools/call') {
      attributes[names.GEN_AI_OPERATION_NAME] = 'execute_tool';
      if (target) attributes[names.GEN_AI_TOOL_NAME] = target;
    } else if (request.method === 'prompts/get' && target) {
      attributes[names.GEN_AI_PROMPT_NAME] = target;
    }
    if (request.protocolVersion) attributes[names.MCP_PROTOCOL_VERSION] = request.protocolVersion;
    if (request.transport === 'tcp') attributes[names.NETWORK_PROTOCOL_NAME] = 'http';
    // Node says `2.0` for HTTP/2, which the convention spells `2`.
    const httpVersion = request.http?.httpVersion;
    if (httpVersion) attributes[names.NETWORK_PROTOCOL_VERSION] = httpVersion === '2.0' ? '2' : httpVersion;
    return attributes;
  }

  /**
   * Whether a tracer provider (an SDK) is registered with the API: until one is, no span is
   * started at all. Once one is seen it stays (the API does not take a provider back).
   */
  readonly tracerRegistered = (): boolean => {
    if (!this.tracerSeen && this.tracerProvider) {
      const provider = this.tracerProvider;
      this.tracerSeen =
        !(provider instanceof this.api!.ProxyTracerProvider) || provider.getDelegateTracer(names.INSTRUMENTATION_SCOPE) !== undefined;
    }
    return this.tracerSeen;
  };

  private finish(span: Span | undefined, request: McpTracedRequest, target: string | undefined, started: number, settled: Settled): void {
    if (!span && !this.measures) {
      return;
    }
    const failure = failureOf(settled);
    // `initialize` negotiates the version: its answer says which one this request used.
    const negotiated =
      request.method === 'initialize' && settled.ok
        ? (settled.result as { protocolVersion?: unknown } | undefined)?.protocolVersion
        : undefined;
    const version: Attributes = typeof negotiated === 'string' ? { [names.MCP_PROTOCOL_VERSION]: negotiated } : {};
    if (span?.isRecording()) {
      span.setAttributes(version);
      if (failure) {
        span.setAttribute(names.ERROR_TYPE, failure.type);
        if (failure.code !== undefined) span.setAttribute(names.RPC_RESPONSE_STATUS_CODE, failure.code);
        if (failure.exception) span.recordException(failure.exception);
        span.setStatus({ code: this.api!.SpanStatusCode.ERROR, message: failure.message });
      } else if (settled.ok && this.options!.recordResults && request.method === 'tools/call') {
        const result = settled.result as { structuredContent?: unknown; content?: unknown } | undefined;
        span.setAttribute(names.GEN_AI_TOOL_CALL_RESULT, JSON.stringify(result?.structuredContent ?? result?.content ?? null));
      }
    }
    span?.end();
    if (this.measures) {
      const attributes: Attributes = { ...this.commonAttributes(request, target), ...version };
      if (failure) attributes[names.ERROR_TYPE] = failure.type;
      this.operationDuration!.record((performance.now() - started) / 1000, attributes);
    }
  }
}

/** The URI of a handle-keyed workflow instance resource (see `WorkflowResourcesFactory`): its machine and its handle. */
const WORKFLOW_INSTANCE_URI = /^workflow:\/\/([^/]+)\/instance\/([^/?#]+)/;

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The span name's target: the tool or prompt of the request (a resource URI is left out: too many values). */
function targetOf(method: string, params: unknown): string | undefined {
  if (method !== 'tools/call' && method !== 'prompts/get') {
    return undefined;
  }
  const name = (params as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

function metaOf(params: unknown): Record<string, unknown> | undefined {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === 'object' && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

/**
 * How a request failed, as the convention records it; `undefined` when it did not. A tool
 * result with `isError` is `tool_error` (a refusal too: the gate puts its code in
 * `workflow.refusal.code`), a JSON-RPC error its code.
 */
function failureOf(settled: Settled): { type: string; code?: string; message?: string; exception?: Error } | undefined {
  if (settled.ok) {
    const result = settled.result as { isError?: unknown; _meta?: Record<string, unknown> } | undefined;
    if (result?.isError !== true) {
      return undefined;
    }
    // The result's text is not the status description: a refusal's may echo a handle, a handler's anything. A refusal's code may be.
    const refusal = result._meta?.[MCP_ERROR_META_KEY] as { code?: unknown } | undefined;
    return { type: names.TOOL_ERROR, message: typeof refusal?.code === 'string' ? refusal.code : undefined };
  }
  const { error } = settled;
  const { code, data, message } = (error ?? {}) as { code?: unknown; data?: unknown; message?: unknown };
  // The SDK answers an error without a JSON-RPC code as -32603.
  const rpcCode = String(Number.isSafeInteger(code) ? code : -32603);
  const refusalCode = (data as { code?: unknown } | undefined)?.code;
  return {
    type: rpcCode,
    code: rpcCode,
    // A refusal's message may echo the handle it was given: its code describes it instead.
    message: typeof refusalCode === 'string' ? refusalCode : typeof message === 'string' ? message : undefined,
    exception: Number.isSafeInteger(code) || !(error instanceof Error) ? undefined : error,
  };
}
