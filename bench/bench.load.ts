import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { performance } from 'node:perf_hooks';

/** One MCP session driven by the bench: the official SDK client over Streamable HTTP. */
export interface BenchClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

/** Timings of one measured run. */
export interface LoadSample {
  requests: number;
  errors: number;
  elapsedMs: number;
  latenciesMs: number[];
}

/** Opens a session (initialize, initialized, and the SDK client's GET stream). */
export async function openClient(url: URL): Promise<BenchClient> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url);
  await client.connect(transport);
  return { client, transport };
}

/** Ends a session the way a well-behaved client does: DELETE, then close the transport. */
export async function closeClient({ client, transport }: BenchClient): Promise<void> {
  await transport.terminateSession();
  await client.close();
}

/**
 * Runs `perClient` sequential operations on every client, all clients at once, and times each.
 * An operation that returns `false` or throws counts as an error (and is still timed).
 */
export async function drive(
  clients: BenchClient[],
  perClient: number,
  operation: (client: BenchClient, index: number) => Promise<boolean>,
): Promise<LoadSample> {
  const latenciesMs: number[] = [];
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let index = 0; index < perClient; index++) {
        const before = performance.now();
        const ok = await operation(client, index).catch(() => false);
        latenciesMs.push(performance.now() - before);
        if (!ok) errors++;
      }
    }),
  );
  return { requests: clients.length * perClient, errors, elapsedMs: performance.now() - started, latenciesMs };
}

/** Runs `total` operations with at most `concurrency` in flight (for session churn). */
export async function pool(total: number, concurrency: number, operation: (index: number) => Promise<void>): Promise<number> {
  let next = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        const index = next++;
        await operation(index).catch(() => errors++);
      }
    }),
  );
  return errors;
}

/** The `p`-th percentile (0–100) of ascending `sorted`, nearest rank. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/** The median of `values`. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
