import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { BenchProcesses } from './bench-target.client.js';
import { BenchServerProcess } from './bench-server.process.js';
import { MixedClients, type MixedClientsRound } from './bench-mixed.clients.js';
import { MIXED_OPERATIONS, type MixedOperation } from './bench-mixed.protocol.js';
import { closeClient, median, openClient, percentile, type BenchClient } from './bench.load.js';
import type { BudgetRow } from './bench.results.js';
import { callTool } from './bench.session.js';
import { SAMPLE_DIST, SETTINGS } from './bench.settings.js';
import { printTable } from './bench.table.js';

/** One of the two servers a user compares, started as its user starts it. */
interface Side {
  name: 'hand' | 'sample';
  label: string;
  script: string;
  env: Record<string, string | undefined>;
}

const SAMPLE_DB = join(tmpdir(), `nestjs-mcp-fsm-bench-e2e-${process.pid}.sqlite`);
const HAND: Side = {
  name: 'hand',
  label: 'hand-written (bare SDK, hand gates, SQLite)',
  script: fileURLToPath(new URL('./sample-baseline.main.js', import.meta.url)),
  env: {},
};
// As `npm run sample` serves it (tsc, then `node .sample-dist/sample/main.js`), with its defaults
// whatever the runner's environment says: SQLite, stateful HTTP, no auth, no relay.
const SAMPLE: Side = {
  name: 'sample',
  label: `sample (npm run sample: McpModule, TypeORM on SQLite)${SAMPLE_DIST ? ` of ${SAMPLE_DIST}` : ''}`,
  script: SAMPLE_DIST ? resolve(SAMPLE_DIST, 'sample/main.js') : fileURLToPath(new URL('../sample/main.js', import.meta.url)),
  env: {
    PORT: '0',
    NO_COLOR: '1',
    SAMPLE_DB,
    DATABASE_URL: undefined,
    REDIS_URL: undefined,
    MCP_TRANSPORT: undefined,
    HTTP_ADAPTER: undefined,
    SAMPLE_AUTH: undefined,
    SAMPLE_HANDLER_DELAY_MS: undefined,
    MCP_HANDLE_TOOLS: undefined,
    OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
  },
};
const SIDES = [HAND, SAMPLE];

const AMOUNT = 12.34;
/** Per-operation floors of the mixed workload's median latencies (theirs ÷ ours). */
const LATENCY_TARGETS: Record<MixedOperation, number> = {
  'tools/list': 0.85,
  'payment.authorize': 0.8,
  'payment.status': 0.8,
  'payment.capture': 0.8,
};

/** What a session whose invoice is in draft and that captured a payment is shown. */
const MENU = ['invoice.submit', 'invoice.status', 'payment.authorize', 'payment.refund', 'payment.status'];

const listed = async ({ client }: BenchClient) => {
  const { tools } = await client.listTools();
  return tools.length === MENU.length && tools.every((tool, index) => tool.name === MENU[index]);
};
const call = async ({ client }: BenchClient, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return result.isError ? undefined : result.structuredContent;
};
const status = async (client: BenchClient, paymentId: string) => {
  const found = (await call(client, 'payment.status', { paymentId })) as { state?: string; ledger?: unknown[] } | undefined;
  return found?.state === 'captured' && found.ledger?.length === 2;
};

/** One round of the mixed workload on one side, with the server's CPU over it. */
interface MixedRound extends MixedClientsRound {
  serverCpuUs: number;
}

/** One sequential round (one client, one request at a time) on one side. */
interface SequentialRound {
  requests: number;
  errors: number;
  cpuUs: number;
  latenciesMs: number[];
}

/** A client whose session started and captured some payments, and the last of them. */
interface Prepared {
  session: BenchClient;
  paymentId: string;
}

/** The sessions of the sequential rows on one side: one with a few captured payments, one with many. */
interface PreparedSessions {
  few: Prepared;
  many: Prepared;
}

/** A request measured one at a time, and the rows it answers. */
interface SequentialRow {
  label: string;
  /** The session it runs in. */
  session: keyof PreparedSessions;
  operation: (prepared: Prepared) => Promise<boolean>;
  speed: Omit<BudgetRow, 'ratios'>;
  cpu: Omit<BudgetRow, 'ratios'>;
}

const many = SETTINGS.manyPayments.toLocaleString('en');
const few = SETTINGS.sequentialPayments.toLocaleString('en');
const LIST_FEW: SequentialRow = {
  label: 'tools/list',
  session: 'few',
  operation: ({ session }) => listed(session),
  speed: {
    scenario: 'tools/list, end to end (speed, one client)',
    vs: 'bare SDK list (hand-written server)',
    target: 0.85,
    goal: 'at least',
  },
  cpu: { scenario: 'tools/list, server CPU (one client)', vs: 'bare SDK list (hand-written server)' },
};
const LIST_MANY: SequentialRow = {
  label: `tools/list, ${many} live payments`,
  session: 'many',
  operation: ({ session }) => listed(session),
  speed: {
    scenario: `tools/list in a session following ${many} live payments, end to end (speed, one client)`,
    vs: 'the same on the hand-written server',
    goal: 'at least',
  },
  cpu: {
    scenario: `tools/list in a session following ${many} live payments, server CPU (one client)`,
    vs: 'the same on the hand-written server',
  },
};
const SEQUENTIAL_ROWS: SequentialRow[] = [
  LIST_FEW,
  {
    label: 'payment.status',
    session: 'few',
    operation: ({ session, paymentId }) => status(session, paymentId),
    speed: {
      scenario: 'gated read tool payment.status, end to end (speed, one client)',
      vs: 'bare SDK call (hand-written server)',
      goal: 'at least',
    },
    cpu: { scenario: 'gated read tool payment.status, server CPU (one client)', vs: 'bare SDK call (hand-written server)', target: 1.2 },
  },
  LIST_MANY,
];

/**
 * The end-to-end rows: what a user sees from the sample as `npm run sample` serves it (its
 * `main.js` in a process of its own, on SQLite) against the same tools written by hand on the
 * bare SDK (`sample-baseline.main.ts`, in a process of its own), with the official SDK client
 * in the loop. The mixed workload runs `mixedClients` client processes, each holding one
 * session per server for the whole phase (so each session follows every payment it made, more
 * with every round), `mixedIterations` iterations of `tools/list` → `payment.authorize` →
 * `payment.status` → `payment.capture` per round; each run is one round on each server, the
 * order alternating from run to run, at least 4 runs. Then one client in this process makes
 * `sequentialRequests` requests one at a time on each side, in batches that alternate between
 * them. Prints the figures; returns the rows, one ratio per run.
 */
export async function runEndToEnd(started: BenchProcesses): Promise<BudgetRow[]> {
  const servers = new Map<Side, BenchServerProcess>();
  let clients: MixedClients | undefined;
  removeDatabase();
  try {
    for (const side of SIDES) {
      const server = await BenchServerProcess.start(side.label, side.script, side.env);
      started.add(server);
      servers.set(side, server);
    }
    const prepared = new Map<Side, PreparedSessions>();
    for (const side of SIDES) {
      const server = servers.get(side)!;
      prepared.set(side, {
        few: await prepare(server, side, SETTINGS.sequentialPayments),
        many: await prepare(server, side, SETTINGS.manyPayments),
      });
    }
    clients = await MixedClients.start(SETTINGS.mixedClients, Object.fromEntries(SIDES.map((side) => [side.name, servers.get(side)!.url])));
    started.add(clients);
    const mixed = new Map<Side, MixedRound[]>(SIDES.map((side) => [side, []]));
    const sequential = new Map<SequentialRow, Map<Side, SequentialRound[]>>(
      SEQUENTIAL_ROWS.map((row) => [row, new Map(SIDES.map((side) => [side, []]))]),
    );
    const run = async (order: Side[], record: boolean) => {
      for (const side of order) {
        const round = await mixedRound(clients!, servers.get(side)!, side);
        if (!record && round.errors) throw new Error(`${side.label}: ${round.errors} of ${round.iterations} warm-up iterations failed`);
        if (record) mixed.get(side)!.push(round);
      }
      for (const row of SEQUENTIAL_ROWS) {
        const rounds = await sequentialRounds(servers, prepared, row, order);
        for (const [side, round] of rounds) {
          if (!record && round.errors) throw new Error(`${side.label}: ${round.errors} of ${round.requests} warm-up ${row.label} failed`);
          if (record) sequential.get(row)!.get(side)!.push(round);
        }
      }
    };
    await run(SIDES, false);
    for (let index = 0; index < SETTINGS.mixedRuns; index++) await run(index % 2 ? [SAMPLE, HAND] : [HAND, SAMPLE], true);
    for (const { few, many } of prepared.values()) await Promise.all([closeClient(few.session), closeClient(many.session)]);

    printMixed(mixed);
    printSequential(sequential);
    return rows(mixed, sequential);
  } finally {
    if (clients) {
      await clients.close().catch(() => clients!.kill());
      started.delete(clients);
    }
    for (const server of servers.values()) {
      await server.stop();
      started.delete(server);
    }
    removeDatabase();
  }
}

function removeDatabase(): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(SAMPLE_DB + suffix, { force: true });
}

/**
 * A session with `payments` payments authorized and captured (not timed): the first with the
 * session's SDK client, the rest over `fetch` in the same session, which spares the runner's CPU.
 */
async function prepare(server: BenchServerProcess, side: Side, payments: number): Promise<Prepared> {
  const session = await openClient(server.url);
  const sessionId = session.transport.sessionId!;
  const started = await call(session, 'payment.authorize', { amount: AMOUNT, currency: 'EUR' });
  let paymentId = started?.paymentId as string | undefined;
  if (!paymentId || (await call(session, 'payment.capture', { paymentId }))?.captured !== AMOUNT) {
    throw new Error(`${side.label}: could not prepare a sequential session`);
  }
  for (let index = 1; index < payments; index++) {
    const authorized = await callTool(server.url, sessionId, 'payment.authorize', { amount: AMOUNT, currency: 'EUR' });
    paymentId = authorized.structuredContent!.paymentId as string;
    await callTool(server.url, sessionId, 'payment.capture', { paymentId });
  }
  return { session, paymentId };
}

async function mixedRound(clients: MixedClients, server: BenchServerProcess, side: Side): Promise<MixedRound> {
  const before = server.cpuUs();
  const round = await clients.round(side.name, SETTINGS.mixedIterations);
  return { ...round, serverCpuUs: server.cpuUs() - before };
}

/**
 * One sequential round of `row` on each side, in batches of `sequentialBatch` requests that
 * alternate between the sides (first in `order`, then the other, then the other again…), so
 * both see the same load; before them, `sequentialWarmup` requests on each side, unmeasured,
 * collect the garbage the previous row left behind in that server's process.
 */
async function sequentialRounds(
  servers: Map<Side, BenchServerProcess>,
  prepared: Map<Side, PreparedSessions>,
  row: SequentialRow,
  order: Side[],
): Promise<Map<Side, SequentialRound>> {
  const { sequentialRequests, sequentialBatch, sequentialWarmup } = SETTINGS;
  const rounds = new Map<Side, SequentialRound>();
  for (const side of order) {
    for (let index = 0; index < sequentialWarmup; index++) await row.operation(prepared.get(side)![row.session]).catch(() => false);
    rounds.set(side, { requests: 0, errors: 0, cpuUs: 0, latenciesMs: [] });
  }
  for (let batch = 0; batch * sequentialBatch < sequentialRequests; batch++) {
    for (const side of batch % 2 ? [...order].reverse() : order) {
      const server = servers.get(side)!;
      const round = rounds.get(side)!;
      const cpuBefore = server.cpuUs();
      for (let index = 0; index < sequentialBatch; index++) {
        const before = performance.now();
        const ok = await row.operation(prepared.get(side)![row.session]).catch(() => false);
        round.latenciesMs.push(performance.now() - before);
        round.requests++;
        if (!ok) round.errors++;
      }
      round.cpuUs += server.cpuUs() - cpuBefore;
    }
  }
  return rounds;
}

const opsOf = (round: MixedRound) => (round.iterations - round.errors) * MIXED_OPERATIONS.length;
const opsPerSec = (round: MixedRound) => (opsOf(round) / round.elapsedMs) * 1000;
const perOp = (round: MixedRound, us: number) => us / (round.iterations * MIXED_OPERATIONS.length);
const p50 = (latencies: number[]) =>
  percentile(
    [...latencies].sort((a, b) => a - b),
    50,
  );
const span = (values: number[]) => `${median(values).toFixed(0)} (${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)})`;

function printMixed(mixed: Map<Side, MixedRound[]>): void {
  const { mixedClients, mixedIterations, mixedRuns } = SETTINGS;
  console.log(
    `\nMixed workload, end to end (${mixedClients} client processes, each with one SDK session per server kept for the whole phase, × ${mixedIterations} iterations of ` +
      `${MIXED_OPERATIONS.join(' → ')} per round; one round per server per run, ${mixedRuns} runs, alternating, after one warm-up round each; ` +
      `ops/s, p50 and CPU: median of the runs (min–max); ${availableParallelism()} cores, load ${loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} at the end)`,
  );
  printTable(
    [
      'server',
      'iterations',
      'errors',
      'ops/s',
      ...MIXED_OPERATIONS.map((operation) => `p50 ${operation} ms`),
      'srv CPU µs/op',
      'clients CPU µs/op',
      'srv busy %',
    ],
    SIDES.map((side) => {
      const rounds = mixed.get(side)!;
      return [
        side.label,
        String(rounds.reduce((sum, round) => sum + round.iterations, 0)),
        String(rounds.reduce((sum, round) => sum + round.errors, 0)),
        span(rounds.map(opsPerSec)),
        ...MIXED_OPERATIONS.map((operation) => median(rounds.map((round) => p50(round.latenciesMs[operation]))).toFixed(2)),
        span(rounds.map((round) => perOp(round, round.serverCpuUs))),
        span(rounds.map((round) => perOp(round, round.clientCpuUs))),
        span(rounds.map((round) => (round.serverCpuUs / 1000 / round.elapsedMs) * 100)),
      ];
    }),
  );
}

function printSequential(sequential: Map<SequentialRow, Map<Side, SequentialRound[]>>): void {
  const { sequentialRequests, sequentialBatch, sequentialWarmup, mixedRuns } = SETTINGS;
  console.log(
    `\nOne client, sequential, end to end (${sequentialRequests} requests per server per run, in batches of ${sequentialBatch} alternating between them, after ${sequentialWarmup} unmeasured; ${mixedRuns} runs; ` +
      `a session with ${few} captured payments, or with ${many}; p50/p99: all runs pooled; server CPU: median of runs)`,
  );
  const lines: string[][] = [];
  for (const [row, bySide] of sequential) {
    for (const side of SIDES) {
      const rounds = bySide.get(side)!;
      const latencies = rounds.flatMap((round) => round.latenciesMs).sort((a, b) => a - b);
      lines.push([
        `${row.label}, ${side.label}`,
        String(rounds.reduce((sum, round) => sum + round.requests, 0)),
        String(rounds.reduce((sum, round) => sum + round.errors, 0)),
        percentile(latencies, 50).toFixed(2),
        percentile(latencies, 99).toFixed(2),
        median(rounds.map((round) => round.cpuUs / round.requests)).toFixed(0),
      ]);
    }
  }
  printTable(['request, server', 'requests', 'errors', 'p50 ms', 'p99 ms', 'srv CPU µs/op'], lines);
}

/** The rows, one ratio per run: speeds (the sample's throughput ÷ the hand-written one's, their latency ÷ the sample's) and CPU costs (the sample's ÷ theirs). */
function rows(mixed: Map<Side, MixedRound[]>, sequential: Map<SequentialRow, Map<Side, SequentialRound[]>>): BudgetRow[] {
  const [hand, sample] = [mixed.get(HAND)!, mixed.get(SAMPLE)!];
  const vs = 'hand-written durable server';
  const cpuPerRequest = (round: SequentialRound) => round.cpuUs / round.requests;
  const result: BudgetRow[] = [
    {
      scenario: 'mixed workload throughput, sample on SQLite',
      vs,
      target: 0.9,
      goal: 'at least',
      ratios: sample.map((round, run) => opsPerSec(round) / opsPerSec(hand[run])),
    },
    ...MIXED_OPERATIONS.map((operation): BudgetRow => ({
      scenario: `mixed workload, median latency of ${operation} (speed)`,
      vs,
      target: LATENCY_TARGETS[operation],
      goal: 'at least',
      ratios: sample.map((round, run) => p50(hand[run].latenciesMs[operation]) / p50(round.latenciesMs[operation])),
    })),
    {
      scenario: 'mixed workload, server CPU per operation',
      vs,
      ratios: sample.map((round, run) => perOp(round, round.serverCpuUs) / perOp(hand[run], hand[run].serverCpuUs)),
    },
  ];
  for (const [row, bySide] of sequential) {
    const [theirs, ours] = [bySide.get(HAND)!, bySide.get(SAMPLE)!];
    result.push(
      { ...row.speed, ratios: ours.map((round, run) => p50(theirs[run].latenciesMs) / p50(round.latenciesMs)) },
      { ...row.cpu, ratios: ours.map((round, run) => cpuPerRequest(round) / cpuPerRequest(theirs[run])) },
    );
  }
  const [fewLists, manyLists] = [sequential.get(LIST_FEW)!.get(SAMPLE)!, sequential.get(LIST_MANY)!.get(SAMPLE)!];
  result.push({
    scenario: `tools/list following ${many} live payments, server CPU (sample)`,
    vs: `the same following ${few}`,
    target: 1.1,
    ratios: manyLists.map((round, run) => cpuPerRequest(round) / cpuPerRequest(fewLists[run])),
  });
  return result;
}
