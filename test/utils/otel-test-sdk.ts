import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AggregationTemporality,
  DataPointType,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';

/** One metric's data points, as the in-memory exporter kept them. */
export type MetricPoints = DataPoint<number | Histogram>[];

/**
 * The real OpenTelemetry SDK registered globally, as an app registers it before it creates
 * its Nest app: spans kept in memory as they end, metrics read on demand.
 */
export class OtelTestSdk {
  readonly spans = new InMemorySpanExporter();
  private readonly metricExporter = new InMemoryMetricExporter(AggregationTemporality.DELTA);
  private readonly reader = new PeriodicExportingMetricReader({ exporter: this.metricExporter, exportIntervalMillis: 3_600_000 });
  private readonly tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: this.spans })] });
  private readonly meterProvider = new MeterProvider({ readers: [this.reader] });
  private readonly contextManager = new AsyncLocalStorageContextManager().enable();

  constructor() {
    context.setGlobalContextManager(this.contextManager);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(this.tracerProvider);
    metrics.setGlobalMeterProvider(this.meterProvider);
  }

  /** The ended spans named `name`. */
  named(name: string): ReadableSpan[] {
    return this.spans.getFinishedSpans().filter((span) => span.name === name);
  }

  /** The children of `parent`. */
  childrenOf(parent: ReadableSpan): ReadableSpan[] {
    const { spanId } = parent.spanContext();
    return this.spans.getFinishedSpans().filter((span) => span.parentSpanContext?.spanId === spanId);
  }

  /** The data points of the metric `name` since the last read (delta), across scopes. */
  async metric(name: string): Promise<MetricPoints> {
    this.metricExporter.reset();
    await this.reader.forceFlush();
    const points: MetricPoints = [];
    for (const resource of this.metricExporter.getMetrics()) {
      for (const scope of resource.scopeMetrics) {
        for (const metric of scope.metrics) {
          if (metric.descriptor.name === name) {
            points.push(...(metric.dataPoints as MetricPoints));
            if (metric.dataPointType !== DataPointType.HISTOGRAM && metric.dataPointType !== DataPointType.SUM) {
              throw new Error(`${name} is a ${metric.dataPointType}`);
            }
          }
        }
      }
    }
    return points;
  }

  /** Forgets the spans and the metrics recorded so far. */
  async reset(): Promise<void> {
    this.spans.reset();
    await this.metric('');
  }

  async shutdown(): Promise<void> {
    await this.tracerProvider.shutdown();
    await this.meterProvider.shutdown();
    this.contextManager.disable();
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
  }
}

/** A W3C `traceparent` of a client span (sampled), with its trace and span ids. */
export function clientTraceparent(): { traceparent: string; traceId: string; spanId: string } {
  const hex = (bytes: number) => [...crypto.getRandomValues(new Uint8Array(bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
  const traceId = hex(16);
  const spanId = hex(8);
  return { traceparent: `00-${traceId}-${spanId}-01`, traceId, spanId };
}
