import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchTargetProcess } from './bench-target.client.js';
import type { BenchClient } from './bench.load.js';
import type { BenchTarget } from './bench-target.process.js';
import { processCpuUs } from './bench.process-cpu.js';

/**
 * A/B of one server's CPU per request between two builds (two `.sample-dist` directories,
 * for example `main` and a branch), or of two servers (`<dist>:<target>`, for example the
 * sample and its hand-written twin in one build), on a machine too loaded for absolute
 * numbers: both run at once, each in its own target process, and batches of requests
 * alternate between them (A, B, B, A, …) so that both see the same load. CPU is the target
 * process's time on a CPU, read from `/proc/<pid>/task/<tid>/schedstat` around each batch
 * (Linux), so waiting for a core costs nothing: its main thread and its other threads (V8's
 * garbage collection helpers, libuv's pool) apart. Lower quantiles tell the code's cost from
 * the load's but mostly leave out the batches a collection landed in; the means count them.
 *
 *   node .sample-dist/bench/compare.js <dist A>[:target] <dist B>[:target] [--op status|list|pay|loop] [--target sample] [--batches 150] [--batch 10]
 */

const OPERATIONS = {
  list: async ({ client }: BenchClient) => void (await client.listTools()),
  status: async ({ client }: BenchClient, paymentId: string) =>
    void checked(await client.callTool({ name: 'payment.status', arguments: { paymentId } })),
  /** `payment.authorize` then `payment.capture`: two gated transitions. */
  pay: async ({ client }: BenchClient) => {
    const authorized = checked(await client.callTool({ name: 'payment.authorize', arguments: { amount: 1, currency: 'EUR' } }));
    checked(await client.callTool({ name: 'payment.capture', arguments: { paymentId: authorized.structuredContent!.paymentId } }));
  },
  /** The bench tools' gated flip/flop (a `nest-*` target). */
  loop: async ({ client }: BenchClient, _paymentId: string, index: number) =>
    void checked(await client.callTool({ name: index % 2 === 0 ? 'loop.flip' : 'loop.flop', arguments: {} })),
};
type Operation = keyof typeof OPERATIONS;

interface Side {
  /** `<dist>:<target>`, as printed. */
  label: string;
  server: BenchTargetProcess;
  session: BenchClient;
  paymentId: string;
  /** CPU per request of each batch, in µs: all threads, and the main thread. */
  cpuUs: number[];
  mainUs: number[];
}

function checked(result: unknown): CallToolResult {
  const call = result as CallToolResult;
  if (call.isError) throw new Error(`tool error: ${JSON.stringify(call.content)}`);
  return call;
}

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? '');
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function start(dist: string, target: BenchTarget, operation: Operation, payments: number): Promise<Side> {
  const base = pathToFileURL(`${resolve(dist)}/bench/`);
  const { BenchTargetProcess: Process } = (await import(new URL('bench-target.client.js', base).href)) as {
    BenchTargetProcess: typeof BenchTargetProcess;
  };
  const { openClient } = (await import(new URL('bench.load.js', base).href)) as { openClient: (url: URL) => Promise<BenchClient> };
  const server = await Process.start(target);
  const session = await openClient(server.url());
  let paymentId = '';
  if (payments > 0) {
    // As in bench:profile: the session follows captured payments (10 unless --payments says).
    for (let index = 0; index < payments; index++) {
      const authorized = checked(await session.client.callTool({ name: 'payment.authorize', arguments: { amount: 1, currency: 'EUR' } }));
      paymentId = authorized.structuredContent!.paymentId as string;
      checked(await session.client.callTool({ name: 'payment.capture', arguments: { paymentId } }));
    }
  }
  return { label: `${dist}:${target}`, server, session, paymentId, cpuUs: [], mainUs: [] };
}

/** `<dist>[:target]`: the build, and the server it runs (`fallback` when none is named). */
function sideOf(spec: string, fallback: BenchTarget): { dist: string; target: BenchTarget } {
  const colon = spec.lastIndexOf(':');
  return colon > 0 ? { dist: spec.slice(0, colon), target: spec.slice(colon + 1) as BenchTarget } : { dist: spec, target: fallback };
}

async function main(): Promise<void> {
  const [specA, specB] = process.argv.slice(2);
  const operation = option('op', 'status') as Operation;
  const target = option('target', 'sample') as BenchTarget;
  const batches = Number(option('batches', '150'));
  const batch = Number(option('batch', '10'));
  // `--payments N`, or `N,M` for a different number on each side (the same server following 10 payments against 1,000).
  const payments = option('payments', operation === 'status' || operation === 'pay' ? '10' : '0')
    .split(',')
    .map(Number);
  if (!specA || !specB || specA.startsWith('--') || specB.startsWith('--'))
    throw new Error('usage: compare.js <dist A>[:target] <dist B>[:target] [options]');
  if (!(operation in OPERATIONS)) throw new Error(`--op takes ${Object.keys(OPERATIONS).join(', ')}`);
  console.log(
    `re-run: node .sample-dist/bench/compare.js ${specA} ${specB} --op ${operation} --target ${target} --batches ${batches} --batch ${batch} --payments ${payments.join(',')}`,
  );
  const sides: Side[] = [];
  for (const [index, spec] of [specA, specB].entries()) {
    const { dist, target: served } = sideOf(spec, target);
    sides.push(await start(dist, served, operation, payments[index] ?? payments[0]));
  }
  try {
    let index = 0;
    const run = async (side: Side, count: number) => {
      for (let each = 0; each < count; each++) await OPERATIONS[operation](side.session, side.paymentId, index++);
    };
    for (const side of sides) await run(side, 500);
    for (let round = 0; round < batches; round++) {
      for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
        const pid = (side.server as unknown as { child: ChildProcess }).child.pid!;
        const before = processCpuUs(pid);
        await run(side, batch);
        const after = processCpuUs(pid);
        side.cpuUs.push((after.main + after.other - before.main - before.other) / batch);
        side.mainUs.push((after.main - before.main) / batch);
      }
    }
    const [a, b] = sides;
    for (const [name, side] of [
      ['A', a],
      ['B', b],
    ] as const) {
      const q = (p: number) => quantile(side.cpuUs, p).toFixed(0);
      console.log(
        `${name} ${side.label}: server CPU per request (µs) p10 ${q(0.1)}, p25 ${q(0.25)}, median ${q(0.5)}; ` +
          `mean ${mean(side.cpuUs).toFixed(0)} (main thread ${mean(side.mainUs).toFixed(0)}, other threads ${(mean(side.cpuUs) - mean(side.mainUs)).toFixed(0)})`,
      );
    }
    const ratio = (p: number) => (quantile(b.cpuUs, p) / quantile(a.cpuUs, p)).toFixed(3);
    const meanRatio = (pick: (side: Side) => number) => (pick(b) / pick(a)).toFixed(3);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(
      `B/A: p10 ${ratio(0.1)}, p25 ${ratio(0.25)}, median ${ratio(0.5)}; mean ${meanRatio((side) => mean(side.cpuUs))} ` +
        `(main thread ${meanRatio((side) => mean(side.mainUs))}, other threads ${meanRatio((side) => mean(side.cpuUs) - mean(side.mainUs))}) ` +
        `(${operation}, ${batches} batches of ${batch}, load ${load})`,
    );
  } finally {
    for (const side of sides) await side.server.stop();
  }
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`compare failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
