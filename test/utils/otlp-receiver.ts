import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An OTLP/JSON attribute value, as exporters send it. */
type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

/** A span as it arrived, with its attributes and its resource's flattened. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  kind: number;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
}

/** One data point of a metric as it arrived. */
export interface ReceivedPoint {
  metric: string;
  attributes: Record<string, unknown>;
  /** A sum's value, or a histogram's count. */
  value: number;
}

const flatten = (attributes: KeyValue[] = []): Record<string, unknown> =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue)),
    ]),
  );

/**
 * A tiny OTLP/HTTP receiver on loopback (`http/json`): keeps every span and metric data point
 * posted to `/v1/traces` and `/v1/metrics`, as a collector would receive them.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly points: ReceivedPoint[] = [];
  /** Content types of the requests received, to tell the protocol the exporters used. */
  readonly contentTypes = new Set<string>();
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        this.contentTypes.add(String(request.headers['content-type']));
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (request.url === '/v1/traces') this.keepSpans(body);
          if (request.url === '/v1/metrics') this.keepPoints(body);
        } catch {
          // Not JSON (another protocol): nothing to keep; the test reads contentTypes.
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Waits until `found` answers something (polling what arrived), or fails after `timeoutMs`. */
  async waitFor<T>(what: string, found: () => T | undefined, timeoutMs = 15_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = found();
      if (value !== undefined) return value;
      if (Date.now() > deadline)
        throw new Error(`no ${what} arrived within ${timeoutMs} ms (spans: ${this.spans.map((s) => s.name).join(', ')})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private keepSpans(body: { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: unknown[] }[] }[] }): void {
    for (const { resource, scopeSpans = [] } of body.resourceSpans ?? []) {
      for (const { spans = [] } of scopeSpans) {
        for (const span of spans as (Omit<ReceivedSpan, 'attributes' | 'resource'> & { attributes?: KeyValue[] })[]) {
          this.spans.push({ ...span, attributes: flatten(span.attributes), resource: flatten(resource?.attributes) });
        }
      }
    }
  }

  private keepPoints(body: { resourceMetrics?: { scopeMetrics?: { metrics?: unknown[] }[] }[] }): void {
    type Point = { attributes?: KeyValue[]; asInt?: string | number; asDouble?: number; count?: string | number };
    type Metric = { name: string; sum?: { dataPoints: Point[] }; histogram?: { dataPoints: Point[] } };
    for (const { scopeMetrics = [] } of body.resourceMetrics ?? []) {
      for (const { metrics = [] } of scopeMetrics) {
        for (const metric of metrics as Metric[]) {
          for (const point of metric.sum?.dataPoints ?? metric.histogram?.dataPoints ?? []) {
            const value = Number(point.asInt ?? point.asDouble ?? point.count ?? 0);
            this.points.push({ metric: metric.name, attributes: flatten(point.attributes), value });
          }
        }
      }
    }
  }
}
