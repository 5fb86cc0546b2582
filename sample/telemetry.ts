import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { NodeSDK } from '@opentelemetry/sdk-node';

/** The service name spans and metrics carry when `OTEL_SERVICE_NAME` is not set. */
const DEFAULT_SERVICE_NAME = 'nestjs-mcp-fsm-sample';

let sdk: NodeSDK | undefined;

/**
 * Starts the OpenTelemetry Node SDK when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, before the app
 * is created (the module takes its tracer and meter when it starts). The SDK reads the standard
 * variables itself: `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/json`, `http/protobuf`, `grpc`),
 * `OTEL_METRIC_EXPORT_INTERVAL`, `OTEL_BSP_SCHEDULE_DELAY`, `OTEL_SERVICE_NAME`, ... Without the
 * endpoint, no SDK is loaded at all (the library's spans stay no-ops).
 */
export async function startSampleTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT) {
    return;
  }
  const { NodeSDK } = await import('@opentelemetry/sdk-node');
  sdk = new NodeSDK(env.OTEL_SERVICE_NAME ? {} : { serviceName: DEFAULT_SERVICE_NAME });
  sdk.start();
}

/**
 * Flushes and stops the SDK when the app shuts down: Nest runs this after the calls in flight
 * drained and the sessions closed (`onApplicationShutdown` comes last), so their spans and the
 * last metrics are exported before the process exits.
 */
@Injectable()
export class SampleTelemetryShutdown implements OnApplicationShutdown {
  async onApplicationShutdown(): Promise<void> {
    const running = sdk;
    sdk = undefined;
    await running?.shutdown();
  }
}
