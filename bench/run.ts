import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { availableParallelism } from 'node:os';
import { BENCH_TOOLS, LISTED_WITH_LIVE_DOCS } from './bench.machines.js';
import { closeClient, drive, median, openClient, percentile, pool, type BenchClient, type LoadSample } from './bench.load.js';
import { churnSession, openRawSession, type RawSession } from './bench.session.js';
import { BenchTargetProcess } from './bench-target.client.js';
import type { BenchTarget } from './bench-target.process.js';

/** Multiplies every request and session count (`BENCH_SCALE=0.2` for a smoke run); 1 is the reference run. */
const SCALE = Number(process.env.BENCH_SCALE ?? 1) || 1;
const count = (n: number, even = false) => {
  const scaled = Math.max(even ? 2 : 1, Math.round(n * SCALE));
  return even && scaled % 2 ? scaled + 1 : scaled;
};

const CLIENTS = 4;
const ROUNDS = 4;
/** Even, so the gated loop is back in `a` after every run. */
const PER_CLIENT = count(60, true);
/** JIT warm-up per scenario; the servers share one process, so common code (SDK, HTTP, Nest) warms up for all. */
const WARMUP_PER_CLIENT = count(150, true);
const LIVE_HANDLES = 10;
/** Idle sessions held open on the server of scenario 3c (the default `maxSessions` is 1,000). */
const IDLE_SESSIONS = count(500);
const SESSIONS = count(2000);
/** Sessions of the comparison rows (bare SDK, and with a transition): enough to see bytes per session. */
const SIDE_SESSIONS = count(250);
const SESSION_WARMUP = count(100);
/** Sessions held open at the end of each row, to measure what one live session costs. */
const LIVE_SESSIONS = count(40);
const SESSION_CONCURRENCY = 4;
const WATCHDOG_MS = 5 * 60_000;

interface Scenario {
  key: string;
  label: string;
  target: BenchTarget;
  /** Key of the scenario this one is divided by (none for a baseline). */
  baseline?: string;
  /** Prepares the scenario (not timed); may return what undoes it. */
  setup?: (clients: BenchClient[], url: URL) => Promise<void | (() => Promise<void>)>;
  operation: (client: BenchClient, index: number) => Promise<boolean>;
}

interface Outcome {
  scenario: Scenario;
  samples: LoadSample[];
  serverCpuUs: number;
}

const isOk = (result: unknown, text = 'ok') => {
  const call = result as CallToolResult;
  return !call.isError && call.content[0]?.type === 'text' && call.content[0].text === text;
};
const echo = async ({ client }: BenchClient) => isOk(await client.callTool({ name: BENCH_TOOLS.echo.name, arguments: {} }));
const loop = async ({ client }: BenchClient, index: number) =>
  isOk(await client.callTool({ name: index % 2 === 0 ? BENCH_TOOLS.flip.name : BENCH_TOOLS.flop.name, arguments: {} }));
const listing = (expected: string[]) => async ({ client }: BenchClient) => {
  const { tools } = await client.listTools();
  return tools.length === expected.length && tools.every((tool, index) => tool.name === expected[index]);
};
const openDocs = async (clients: BenchClient[]) => {
  for (const { client } of clients) {
    for (let index = 0; index < LIVE_HANDLES; index++) {
      const result = (await client.callTool({ name: BENCH_TOOLS.open.name, arguments: {} })) as CallToolResult;
      if (result.isError || typeof result.structuredContent?.docId !== 'string') {
        throw new Error(`doc.open failed: ${JSON.stringify(result)}`);
      }
    }
  }
};

const openIdleSessions = async (_clients: BenchClient[], url: URL) => {
  const idle: RawSession[] = [];
  await pool(IDLE_SESSIONS, SESSION_CONCURRENCY, async () => void idle.push(await openRawSession(url)));
  if (idle.length !== IDLE_SESSIONS) throw new Error(`opened ${idle.length} of ${IDLE_SESSIONS} idle sessions`);
  return async () => void (await pool(idle.length, SESSION_CONCURRENCY, (index) => idle[index].close()));
};

const SCENARIOS: Scenario[] = [
  { key: 'call.sdk', label: '1 tools/call echo, bare SDK', target: 'baseline', operation: echo },
  { key: 'call.nest', label: '2 tools/call echo, McpModule (unbound)', target: 'nest-memory', baseline: 'call.sdk', operation: echo },
  { key: 'loop.memory', label: '3 gated flip/flop, in-memory (XState)', target: 'nest-memory', baseline: 'call.sdk', operation: loop },
  { key: 'loop.table', label: '3b gated flip/flop, in-memory (table)', target: 'nest-memory-table', baseline: 'call.sdk', operation: loop },
  {
    key: 'loop.crowd',
    label: `3c gated flip/flop, in-memory, +${IDLE_SESSIONS} idle sessions`,
    target: 'nest-memory-crowd',
    baseline: 'loop.memory',
    setup: openIdleSessions,
    operation: loop,
  },
  { key: 'loop.sqlite', label: '4 gated flip/flop, TypeORM sqlite', target: 'nest-sqlite', baseline: 'call.sdk', operation: loop },
  { key: 'list.sdk', label: '5 tools/list, bare SDK (5 tools)', target: 'baseline', operation: listing(LISTED_WITH_LIVE_DOCS) },
  {
    key: 'list.nest.0',
    label: '5a tools/list, McpModule, 0 handles (3 tools)',
    target: 'nest-memory',
    baseline: 'list.sdk',
    operation: listing([BENCH_TOOLS.echo.name, BENCH_TOOLS.flip.name, BENCH_TOOLS.open.name]),
  },
  {
    key: 'list.nest.10',
    label: `5 tools/list, McpModule, ${LIVE_HANDLES} handles (5 tools)`,
    target: 'nest-memory',
    baseline: 'list.sdk',
    setup: openDocs,
    operation: listing(LISTED_WITH_LIVE_DOCS),
  },
];

/** Running target processes, killed if the run aborts. */
const processes = new Set<BenchTargetProcess>();

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench: still running after ${WATCHDOG_MS / 1000} s, giving up\n`);
    for (const child of processes) child.kill();
    process.exit(1);
  }, WATCHDOG_MS);
  watchdog.unref();

  const startedAt = Date.now();
  const parentStart = process.memoryUsage();
  console.log('re-run: npm run bench   (= tsc -p tsconfig.sample.json && node .sample-dist/bench/run.js; BENCH_SCALE=0.25 for a smoke run)');
  console.log(`this run: node ${[...process.execArgv, process.argv[1]].join(' ')}${SCALE !== 1 ? `  (BENCH_SCALE=${SCALE})` : ''}`);
  console.log(
    `node ${process.version}, ${availableParallelism()} cores; all servers in one child process (--expose-gc), ` +
      `${CLIENTS} SDK clients in this process, loopback HTTP; ${ROUNDS} interleaved rounds × ${CLIENTS}×${PER_CLIENT} requests ` +
      `per scenario after ${CLIENTS}×${WARMUP_PER_CLIENT} warm-up`,
  );

  const servers = await BenchTargetProcess.start(...new Set(SCENARIOS.map((scenario) => scenario.target)));
  processes.add(servers);
  const serverStart = await servers.memory();

  const sessions = new Map<string, BenchClient[]>();
  const cleanups: (() => Promise<void>)[] = [];
  for (const scenario of SCENARIOS) {
    const url = servers.url(scenario.target);
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => openClient(url)));
    const cleanup = await scenario.setup?.(clients, url);
    if (cleanup) cleanups.push(cleanup);
    const warm = await drive(clients, WARMUP_PER_CLIENT, scenario.operation);
    if (warm.errors) throw new Error(`${scenario.label}: ${warm.errors} of ${warm.requests} warm-up requests failed`);
    sessions.set(scenario.key, clients);
  }

  const outcomes = new Map<string, Outcome>(SCENARIOS.map((scenario) => [scenario.key, { scenario, samples: [], serverCpuUs: 0 }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const scenario of SCENARIOS) {
      const cpuBefore = await servers.cpuUs();
      const sample = await drive(sessions.get(scenario.key)!, PER_CLIENT, scenario.operation);
      const outcome = outcomes.get(scenario.key)!;
      outcome.serverCpuUs += (await servers.cpuUs()) - cpuBefore;
      outcome.samples.push(sample);
    }
  }
  for (const clients of sessions.values()) await Promise.all(clients.map(closeClient));
  for (const cleanup of cleanups) await cleanup();
  printThroughput([...outcomes.values()]);
  console.log(`(throughput phase: ${((Date.now() - startedAt) / 1000).toFixed(1)} s including server start-up and warm-up)`);

  await settle(servers);
  const serverEnd = await servers.memory();
  console.log(
    `\nServer process over the throughput run (all ${servers.label.split('+').length} servers; heap after full GC): ` +
      `heap ${mb(serverStart.heapUsed)} → ${mb(serverEnd.heapUsed)} MB (+${mb(serverEnd.heapUsed - serverStart.heapUsed)}), ` +
      `RSS ${mb(serverStart.rss)} → ${mb(serverEnd.rss)} MB, live sessions at end ${serverEnd.sessions}`,
  );
  await servers.stop();
  processes.delete(servers);

  const memoryStartedAt = Date.now();
  await memoryScenario();
  console.log(`(session phase: ${((Date.now() - memoryStartedAt) / 1000).toFixed(1)} s)`);

  const parentEnd = process.memoryUsage();
  console.log(
    `\nbench runner (clients): RSS ${mb(parentStart.rss)} → ${mb(parentEnd.rss)} MB, heap ${mb(parentStart.heapUsed)} → ${mb(parentEnd.heapUsed)} MB` +
      ` (no forced GC); total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  );
}

function printThroughput(outcomes: Outcome[]): void {
  const summary = new Map(
    outcomes.map(({ scenario, samples, serverCpuUs }) => {
      const requests = samples.reduce((sum, sample) => sum + sample.requests, 0);
      const latencies = samples.flatMap((sample) => sample.latenciesMs).sort((a, b) => a - b);
      return [
        scenario.key,
        {
          requests,
          errors: samples.reduce((sum, sample) => sum + sample.errors, 0),
          opsPerSec: median(samples.map((sample) => (sample.requests / sample.elapsedMs) * 1000)),
          p50: percentile(latencies, 50),
          p99: percentile(latencies, 99),
          cpuPerOp: serverCpuUs / requests,
        },
      ] as const;
    }),
  );
  console.log('\nThroughput and latency (ops/s: median of rounds; p50/p99: all rounds pooled; server CPU: per request, whole server process)');
  printTable(
    ['scenario', 'requests', 'errors', 'ops/s', 'p50 ms', 'p99 ms', 'srv CPU µs/op', 'vs', 'ops/s ratio', 'p50 ratio', 'CPU/op ratio'],
    outcomes.map(({ scenario }) => {
      const own = summary.get(scenario.key)!;
      const base = scenario.baseline ? summary.get(scenario.baseline)! : undefined;
      const ratio = (value: number | undefined) => (value === undefined ? '1.00' : value.toFixed(2));
      return [
        scenario.label,
        String(own.requests),
        String(own.errors),
        own.opsPerSec.toFixed(0),
        own.p50.toFixed(2),
        own.p99.toFixed(2),
        own.cpuPerOp.toFixed(0),
        scenario.baseline ?? '(baseline)',
        ratio(base && own.opsPerSec / base.opsPerSec),
        ratio(base && own.p50 / base.p50),
        ratio(base && own.cpuPerOp / base.cpuPerOp),
      ];
    }),
  );
}

/**
 * Scenario 6: open and close sessions (initialize, initialized, GET stream, DELETE) against a
 * fresh server, with its heap after full GC after the warm-up, half-way and at the end. A leak
 * grows the heap in proportion to the sessions, by about what a live session holds (measured
 * last, with sessions left open); JIT code and caches grow in the first half and then stop.
 */
async function memoryScenario(): Promise<void> {
  const runs: { label: string; target: BenchTarget; sessions: number; tool?: string }[] = [
    { label: '6 open/close, McpModule', target: 'nest-memory', sessions: SESSIONS },
    { label: '6 open/close, bare SDK', target: 'baseline', sessions: SIDE_SESSIONS },
    { label: '6b open/flip/close, McpModule in-memory', target: 'nest-memory', sessions: SIDE_SESSIONS, tool: BENCH_TOOLS.flip.name },
  ];
  const rows: string[][] = [];
  let gcAvailable = true;
  for (const run of runs) {
    const target = await BenchTargetProcess.start(run.target);
    processes.add(target);
    try {
      const keys: string[] = [];
      let errors = 0;
      const churn = async (total: number) => {
        errors += await pool(total, SESSION_CONCURRENCY, async () => {
          keys.push(`loop:session:${await churnSession(target.url(), run.tool)}`);
        });
        await settle(target);
        return target.memory();
      };
      await churn(SESSION_WARMUP);
      keys.length = 0;
      const started = Date.now();
      const before = await target.memory();
      const firstHalf = Math.floor(run.sessions / 2);
      const half = await churn(firstHalf);
      const after = await churn(run.sessions - firstHalf);
      const seconds = (Date.now() - started) / 1000;
      const retained = run.tool ? (await target.request({ cmd: 'retained', keys })).retained! : 0;

      const live = await Promise.all(Array.from({ length: LIVE_SESSIONS }, () => openRawSession(target.url())));
      if (run.tool) await Promise.all(live.map((session) => session.call(run.tool!)));
      const withLive = await target.memory();
      await Promise.all(live.map((session) => session.close()));
      gcAvailable &&= before.gc && after.gc;

      const perLive = (withLive.heapUsed - after.heapUsed) / LIVE_SESSIONS;
      const secondHalf = (after.heapUsed - half.heapUsed) / (run.sessions - firstHalf);
      const leaks = after.sessions > 0 || secondHalf > perLive / 10;
      rows.push([
        run.label,
        String(run.sessions),
        String(errors),
        (run.sessions / seconds).toFixed(0),
        mb(before.heapUsed),
        mb(half.heapUsed),
        mb(after.heapUsed),
        ((after.heapUsed - before.heapUsed) / run.sessions).toFixed(0),
        secondHalf.toFixed(0),
        (perLive / 1024).toFixed(1),
        mb(after.rss - before.rss),
        String(after.sessions),
        run.tool ? `${retained}/${keys.length}` : '-',
        leaks ? 'LEAK?' : 'no leak',
      ]);
    } finally {
      await target.stop();
      processes.delete(target);
    }
  }
  console.log(
    `\nSessions (opened and closed ${SESSION_CONCURRENCY} at a time over fetch after ${SESSION_WARMUP} warm-up, in a fresh server process; heap after full GC):`,
  );
  printTable(
    [
      'scenario',
      'sessions',
      'errors',
      'sessions/s',
      'heap warm MB',
      'heap half MB',
      'heap end MB',
      'growth B/session',
      '2nd half B/session',
      'live session KB',
      'RSS growth MB',
      'live left',
      'store instances left',
      'verdict',
    ],
    rows,
  );
  console.log(
    `(growth: whole run ÷ sessions; 2nd half: growth over the second half of the sessions only; live session: heap held by each of ${LIVE_SESSIONS} sessions left open; ` +
      `verdict "no leak" = no session left live and 2nd-half growth < 10% of a live session)`,
  );
  if (!gcAvailable) console.log('WARNING: global.gc unavailable in the server process; heap numbers include garbage.');
}

/** Waits until the target has no live session (closing is asynchronous), at most 5 s. */
async function settle(target: BenchTargetProcess): Promise<void> {
  const deadline = Date.now() + 5_000;
  while ((await target.memory()).sessions > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function mb(bytes: number): string {
  return (bytes / 1024 / 1024).toFixed(1);
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map((width, column) => (column === 0 ? ':' : '-').padEnd(width + 1, '-') + (column === 0 ? '-' : ':')).join('|')}|`);
  for (const row of rows) console.log(line(row));
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    for (const child of processes) child.kill();
    process.exit(1);
  });
