import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BenchTargetProcess } from './bench-target.client.js';
import { closeClient, median, openClient, type BenchClient } from './bench.load.js';
import { summarizeProfile, type CpuProfile } from './bench.profile-summary.js';
import { printTable } from './bench.table.js';

/** The servers this profiles, each in a process of its own: the sample and its hand-written twin, or the bench tools' `McpModule` apps and the bare SDK gate (`--op loop`). */
const TARGETS = ['sample-baseline', 'sample', 'baseline-gate', 'nest-memory', 'nest-memory-table', 'nest-sqlite'] as const;
type ProfiledTarget = (typeof TARGETS)[number];
/** The targets that serve the sample's tools; the others serve the bench tools. */
const SAMPLE_TARGETS: readonly ProfiledTarget[] = ['sample-baseline', 'sample'];

/**
 * What it profiles, one operation at a time, in a session with 10 captured payments (`pay`
 * adds one per operation), and the POSTs each operation makes.
 */
const OPERATIONS = {
  list: { posts: 1, run: ({ client }: BenchClient) => client.listTools() },
  status: {
    posts: 1,
    run: ({ client }: BenchClient, paymentId: string) => client.callTool({ name: 'payment.status', arguments: { paymentId } }),
  },
  /** `payment.authorize` then `payment.capture` of that payment: two gated transitions, each with its ledger entry. */
  pay: {
    posts: 2,
    run: async ({ client }: BenchClient) => {
      const authorized = (await client.callTool({
        name: 'payment.authorize',
        arguments: { amount: 1, currency: 'EUR' },
      })) as CallToolResult;
      return client.callTool({ name: 'payment.capture', arguments: { paymentId: authorized.structuredContent!.paymentId } });
    },
  },
  /** The bench tools' gated flip/flop, one transition per request (a target that is not the sample). */
  loop: {
    posts: 1,
    run: ({ client }: BenchClient, _paymentId: string, index: number) =>
      client.callTool({ name: index % 2 === 0 ? 'loop.flip' : 'loop.flop', arguments: {} }),
  },
};
type ProfiledOperation = keyof typeof OPERATIONS;

const WARMUP = 500;
/** Requests whose async resources are counted, after the profiled ones. */
const COUNTED = 200;

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index < 0 ? fallback : (process.argv[index + 1] ?? '');
}

function options(): { targets: ProfiledTarget[]; operation: ProfiledOperation; requests: number; out: string } {
  const targets = option('target', SAMPLE_TARGETS.join(',')).split(',');
  const operation = option('op', 'list');
  const requests = Number(option('requests', '3000'));
  if (!targets.every((target) => (TARGETS as readonly string[]).includes(target))) {
    throw new Error(`--target takes ${TARGETS.join(' or ')} (or both, separated by a comma)`);
  }
  if (!(operation in OPERATIONS)) throw new Error(`--op takes ${Object.keys(OPERATIONS).join(' or ')}`);
  const onSample = targets.map((target) => SAMPLE_TARGETS.includes(target as ProfiledTarget));
  if (operation !== 'list' && onSample.includes(operation === 'loop')) {
    throw new Error(
      `--op ${operation} takes ${operation === 'loop' ? "the bench tools' targets (baseline-gate, nest-*)" : "the sample's targets (sample, sample-baseline)"}`,
    );
  }
  if (!Number.isInteger(requests) || requests < 1) throw new Error('--requests takes a whole number, at least 1');
  return { targets: targets as ProfiledTarget[], operation: operation as ProfiledOperation, requests, out: option('out', tmpdir()) };
}

/**
 * Profiles one server with the official SDK client in the loop: `requests` operations one at
 * a time after a warm-up, with a V8 CPU profile of the server process over exactly those
 * requests, the residence and CPU of each request in the server, and the client's own CPU.
 * Prints where the wall time of a request went and where the server's CPU went.
 */
async function profile(target: ProfiledTarget, operation: ProfiledOperation, requests: number, out: string): Promise<void> {
  const server = await BenchTargetProcess.start(target);
  try {
    const { posts } = OPERATIONS[operation];
    // The warm-up runs in a session of its own, so that `pay` starts measuring in a session with 10 payments.
    const prepare = SAMPLE_TARGETS.includes(target) ? prepareSession : openSession;
    const warm = await prepare(server.url());
    for (let index = 0; index < WARMUP; index++) await OPERATIONS[operation].run(warm.session, warm.paymentId, index);
    await closeClient(warm.session);
    const { session, paymentId } = await prepare(server.url());
    let calls = 0;
    const run = () => OPERATIONS[operation].run(session, paymentId, calls++);

    const file = join(out, `nestjs-mcp-fsm-${target}-${operation}-${process.pid}.cpuprofile`);
    await server.request({ cmd: 'profile-start' });
    const clientCpu = process.cpuUsage();
    const latencies: number[] = [];
    const started = performance.now();
    for (let index = 0; index < requests; index++) {
      const before = performance.now();
      await run();
      latencies.push(performance.now() - before);
    }
    const wallMs = performance.now() - started;
    const clientUsed = process.cpuUsage(clientCpu);
    const { window } = await server.request({ cmd: 'profile-stop', file });
    await server.request({ cmd: 'count-start' });
    for (let index = 0; index < COUNTED; index++) await run();
    const { counts } = await server.request({ cmd: 'count-stop' });
    await closeClient(session);

    const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, window!.requests);
    const us = (ms: number) => `${((ms / (requests * posts)) * 1000).toFixed(0)} µs`;
    const busyMs = summary.wallMs - summary.idleMs;
    const residenceMs = window!.requests.reduce((sum, [start, end]) => sum + (end - start) / 1000, 0);
    const clientMs = (clientUsed.user + clientUsed.system) / 1000;
    console.log(`\n${target}, ${requests} × ${operation} one at a time, ${posts} POST${posts > 1 ? 's' : ''} each (profile: ${file})`);
    console.log(
      `  end to end: median ${median(latencies).toFixed(3)} ms, mean ${(wallMs / requests).toFixed(3)} ms per ${operation}; means per request (POST) below`,
    );
    console.log(`  client process CPU ${us(clientMs)} (SDK client, undici, JSON and SSE parsing)`);
    console.log(
      `  in the server (request event → response finish) ${us(residenceMs)}: busy ${us(summary.busyInRequestsMs)}, ` +
        `not busy ${us(residenceMs - summary.busyInRequestsMs)}` +
        (window!.runQueueMs === undefined
          ? ''
          : ` (of which waiting for a CPU at most ${us(window!.runQueueMs)}, the whole window's run-queue wait)`),
    );
    console.log(`  outside the server (client, kernel, wire) ${us(wallMs - residenceMs)}`);
    console.log(
      `  server busy ${us(busyMs)} in all (${((busyMs / summary.wallMs) * 100).toFixed(0)}% of the wall time; GC ${us(summary.gcMs)}), ` +
        `of which outside requests ${us(busyMs - summary.busyInRequestsMs)}`,
    );
    const listed = (record: Record<string, number>) =>
      Object.entries(record)
        .map(([key, count]) => `${key} ${count}`)
        .join(', ');
    console.log(`  async resources per request (${counts!.requests} requests counted): ${listed(counts!.perRequest)}`);
    console.log(`  timers per request by delay (ms): ${listed(counts!.timersByDelay) || 'none'}`);
    for (const site of counts!.shortTimerSites) console.log(`  a timer of ≤ 10 ms set at: ${site}`);
    const share = (ms: number) => `${((ms / busyMs) * 100).toFixed(1)}%`;
    printTable(
      ['server CPU by area (self time)', 'per request', 'of busy'],
      summary.areas
        .filter(([area]) => area !== '(idle)')
        .slice(0, 14)
        .map(([area, ms]) => [area, us(ms), share(ms)]),
    );
    printTable(
      ['server CPU with the area on the stack', 'per request', 'of busy'],
      summary.onStack.slice(0, 14).map(([area, ms]) => [area, us(ms), share(ms)]),
    );
    printTable(
      ['server CPU by function (self time)', 'per request', 'of busy'],
      summary.functions.slice(0, 25).map(([name, ms]) => [name, us(ms), share(ms)]),
    );
  } finally {
    await server.stop();
  }
}

/** A fresh session of the bench tools (no payment: `loop` takes none). */
async function openSession(url: URL): Promise<{ session: BenchClient; paymentId: string }> {
  return { session: await openClient(url), paymentId: '' };
}

/** A session that authorized and captured 10 payments, and the last of them. */
async function prepareSession(url: URL): Promise<{ session: BenchClient; paymentId: string }> {
  const session = await openClient(url);
  let paymentId = '';
  for (let index = 0; index < 10; index++) {
    const authorized = (await session.client.callTool({
      name: 'payment.authorize',
      arguments: { amount: 1, currency: 'EUR' },
    })) as CallToolResult;
    paymentId = authorized.structuredContent!.paymentId as string;
    await session.client.callTool({ name: 'payment.capture', arguments: { paymentId } });
  }
  return { session, paymentId };
}

async function main(): Promise<void> {
  const { targets, operation, requests, out } = options();
  console.log(`re-run: npm run bench:profile -- --target ${targets.join(',')} --op ${operation} --requests ${requests}`);
  for (const target of targets) await profile(target, operation, requests, out);
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`profile failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
