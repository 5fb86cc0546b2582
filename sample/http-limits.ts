import type { Server } from 'node:http';

/** Default time a client has to send a whole request (headers and body) to the sample. */
export const SAMPLE_REQUEST_TIMEOUT_MS = 30_000;
/** The longest the sample waits for a request's headers. */
const SAMPLE_HEADERS_TIMEOUT_MS = 10_000;
/** How long an idle keep-alive connection stays open (Node's default, said out loud). */
const SAMPLE_KEEP_ALIVE_TIMEOUT_MS = 5000;
/** How often Node looks for requests past those limits (its default is every 30 s). */
const SAMPLE_TIMEOUT_CHECK_MS = 1000;

/**
 * Bounds what a slow or silent client costs the sample's HTTP server: a request must arrive
 * whole within `SAMPLE_REQUEST_TIMEOUT_MS` (default 30 s; Node's own default is 300 s), its
 * headers within 10 s, or Node answers 408 and closes the connection. These limits apply to
 * receiving the request only: a long call streaming its result, and a GET stream, are not cut.
 * Call before `listen`: Node reads the check interval when the server starts listening.
 */
export function applySampleHttpLimits(server: Server, env: NodeJS.ProcessEnv = process.env): void {
  const requestTimeout = Number(env.SAMPLE_REQUEST_TIMEOUT_MS) > 0 ? Number(env.SAMPLE_REQUEST_TIMEOUT_MS) : SAMPLE_REQUEST_TIMEOUT_MS;
  server.requestTimeout = requestTimeout;
  server.headersTimeout = Math.min(SAMPLE_HEADERS_TIMEOUT_MS, requestTimeout);
  server.keepAliveTimeout = SAMPLE_KEEP_ALIVE_TIMEOUT_MS;
  // The http.createServer option of the same name, which Nest's adapters do not pass through.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = SAMPLE_TIMEOUT_CHECK_MS;
}

/** How long a graceful shutdown waits for calls in flight: `SAMPLE_DRAIN_MS`, else the module's default. */
export function sampleDrainMs(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const ms = Number(env.SAMPLE_DRAIN_MS);
  return ms >= 0 && env.SAMPLE_DRAIN_MS?.trim() ? ms : undefined;
}
