import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { performance } from 'node:perf_hooks';
import { BenchTargetProcess } from './bench-target.client.js';
import { closeClient, median, openClient, percentile, type BenchClient } from './bench.load.js';
import type { BudgetRow } from './bench.results.js';
import { callTool } from './bench.session.js';
import { SETTINGS } from './bench.settings.js';
import { printTable } from './bench.table.js';

/** One of the two servers a user compares: the sample, and the same tools written by hand. */
interface Side {
  target: 'sample-baseline' | 'sample';
  label: string;
}

const HAND: Side = { target: 'sample-baseline', label: 'hand-written (bare SDK, hand gates, SQLite)' };
const SAMPLE: Side = { target: 'sample', label: 'sample (McpModule, TypeORM on SQLite)' };
const SIDES = [HAND, SAMPLE];

/** One iteration of the mixed workload, in order. */
const OPERATIONS = ['tools/list', 'payment.authorize', 'payment.status', 'payment.capture'] as const;
type Operation = (typeof OPERATIONS)[number];

const AMOUNT = 12.34;

/** Sessions each side keeps open through the runs: those of the sequential rows (the mixed workload's close after each round). */
const KEPT_SESSIONS = 2;

/** What a session whose invoice is in draft is shown, with or without a captured payment. */
const menu = (refundable: boolean) => [
  'invoice.submit',
  'invoice.status',
  'payment.authorize',
  ...(refundable ? ['payment.refund'] : []),
  'payment.status',
];

const listed = async ({ client }: BenchClient, expected: string[]) => {
  const { tools } = await client.listTools();
  return tools.length === expected.length && tools.every((tool, index) => tool.name === expected[index]);
};
const call = async ({ client }: BenchClient, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  return result.isError ? undefined : result.structuredContent;
};
const authorize = async (client: BenchClient) => {
  const paymentId = (await call(client, 'payment.authorize', { amount: AMOUNT, currency: 'EUR' }))?.paymentId;
  return typeof paymentId === 'string' ? paymentId : undefined;
};
const status = async (client: BenchClient, paymentId: string, state: string, entries: number) => {
  const found = (await call(client, 'payment.status', { paymentId })) as { state?: string; ledger?: unknown[] } | undefined;
  return found?.state === state && found.ledger?.length === entries;
};
const capture = async (client: BenchClient, paymentId: string) =>
  (await call(client, 'payment.capture', { paymentId }))?.captured === AMOUNT;

/** One round of the mixed workload on one side. */
interface MixedRound {
  iterations: number;
  /** Iterations that stopped at a failed or wrong answer. */
  errors: number;
  elapsedMs: number;
  cpuUs: number;
  latenciesMs: Record<Operation, number[]>;
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

const SEQUENTIAL_ROWS: SequentialRow[] = [
  {
    label: 'tools/list',
    session: 'few',
    operation: ({ session }) => listed(session, menu(true)),
    speed: {
      scenario: 'tools/list, end to end (speed, one client)',
      vs: 'bare SDK list (hand-written server)',
      target: 0.85,
      goal: 'at least',
    },
    cpu: { scenario: 'tools/list, server CPU (one client)', vs: 'bare SDK list (hand-written server)' },
  },
  {
    label: 'payment.status',
    session: 'few',
    operation: ({ session, paymentId }) => status(session, paymentId, 'captured', 2),
    speed: {
      scenario: 'gated read tool payment.status, end to end (speed, one client)',
      vs: 'bare SDK call (hand-written server)',
      goal: 'at least',
    },
    cpu: { scenario: 'gated read tool payment.status, server CPU (one client)', vs: 'bare SDK call (hand-written server)', target: 1.2 },
  },
  {
    label: `tools/list, ${SETTINGS.manyPayments.toLocaleString('en')} live payments`,
    session: 'many',
    operation: ({ session }) => listed(session, menu(true)),
    speed: {
      scenario: `tools/list in a session following ${SETTINGS.manyPayments.toLocaleString('en')} live payments, end to end (speed, one client)`,
      vs: 'the same on the hand-written server',
      goal: 'at least',
    },
    cpu: {
      scenario: `tools/list in a session following ${SETTINGS.manyPayments.toLocaleString('en')} live payments, server CPU (one client)`,
      vs: 'the same on the hand-written server',
    },
  },
];

/**
 * The end-to-end rows: what a user sees from the sample (its real `AppModule` on SQLite, as
 * `npm run sample` serves it) against the same tools written by hand on the bare SDK
 * (`sample-baseline.server.ts`), each served by a child process of its own, with the official
 * SDK client in the loop. Each run drives both sides in turn (the order alternates from run
 * to run, so that drift in machine load cancels): the mixed workload (`mixedClients`
 * concurrent clients, each in a new session, × `mixedIterations` of `tools/list` →
 * `payment.authorize` → `payment.status` → `payment.capture`) on one side, then on the other;
 * then one client making `sequentialRequests` requests one at a time on each side, in
 * batches that alternate between them (`tools/list`, then `payment.status`, in a session with
 * `sequentialPayments` captured payments, then `tools/list` in a session with
 * `manyPayments`). Prints the figures; returns the rows, one ratio per run.
 */
export async function runEndToEnd(started: Set<BenchTargetProcess>): Promise<BudgetRow[]> {
  // Each side serves from a process of its own: the garbage of a round is collected, and its
  // CPU counted, in the process that made it, so no collection needs to be forced between
  // rounds (a server at work never runs one, and the first requests after it pay to regrow the heap).
  const servers = new Map<Side, BenchTargetProcess>();
  try {
    for (const side of SIDES) {
      const server = await BenchTargetProcess.start(side.target);
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
    const mixed = new Map<Side, MixedRound[]>(SIDES.map((side) => [side, []]));
    const sequential = new Map<SequentialRow, Map<Side, SequentialRound[]>>(
      SEQUENTIAL_ROWS.map((row) => [row, new Map(SIDES.map((side) => [side, []]))]),
    );
    const run = async (order: Side[], record: boolean) => {
      for (const side of order) {
        const server = servers.get(side)!;
        await server.settle(KEPT_SESSIONS, false);
        const round = await mixedRound(server);
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
    for (let index = 0; index < SETTINGS.runs; index++) await run(index % 2 ? [SAMPLE, HAND] : [HAND, SAMPLE], true);
    for (const { few, many } of prepared.values()) await Promise.all([closeClient(few.session), closeClient(many.session)]);

    printMixed(mixed);
    printSequential(sequential);
    return rows(mixed, sequential);
  } finally {
    for (const server of servers.values()) {
      await server.stop();
      started.delete(server);
    }
  }
}

/**
 * A session with `payments` payments authorized and captured (not timed): the first with the
 * session's SDK client, the rest over `fetch` in the same session, which spares the runner's CPU.
 */
async function prepare(server: BenchTargetProcess, side: Side, payments: number): Promise<Prepared> {
  const url = server.url();
  const session = await openClient(url);
  const sessionId = session.transport.sessionId!;
  let paymentId = await authorize(session);
  if (!paymentId || !(await capture(session, paymentId))) throw new Error(`${side.label}: could not prepare a sequential session`);
  for (let index = 1; index < payments; index++) {
    const authorized = await callTool(url, sessionId, 'payment.authorize', { amount: AMOUNT, currency: 'EUR' });
    paymentId = authorized.structuredContent!.paymentId as string;
    await callTool(url, sessionId, 'payment.capture', { paymentId });
  }
  return { session, paymentId };
}

async function mixedRound(server: BenchTargetProcess): Promise<MixedRound> {
  const clients = await Promise.all(Array.from({ length: SETTINGS.mixedClients }, () => openClient(server.url())));
  const latenciesMs = Object.fromEntries(OPERATIONS.map((operation) => [operation, [] as number[]])) as Record<Operation, number[]>;
  const timed = async <T>(operation: Operation, work: () => Promise<T>): Promise<T> => {
    const before = performance.now();
    try {
      return await work();
    } finally {
      latenciesMs[operation].push(performance.now() - before);
    }
  };
  const iteration = async (client: BenchClient, index: number): Promise<boolean> => {
    if (!(await timed('tools/list', () => listed(client, menu(index > 0))))) return false;
    const paymentId = await timed('payment.authorize', () => authorize(client));
    if (!paymentId) return false;
    if (!(await timed('payment.status', () => status(client, paymentId, 'authorized', 1)))) return false;
    return timed('payment.capture', () => capture(client, paymentId));
  };

  let errors = 0;
  const cpuBefore = await server.cpuUs();
  const started = performance.now();
  await Promise.all(
    clients.map(async (client) => {
      for (let index = 0; index < SETTINGS.mixedIterations; index++) {
        if (!(await iteration(client, index).catch(() => false))) errors++;
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const cpuUs = (await server.cpuUs()) - cpuBefore;
  await Promise.all(clients.map(closeClient));
  return { iterations: SETTINGS.mixedClients * SETTINGS.mixedIterations, errors, elapsedMs, cpuUs, latenciesMs };
}

/**
 * One sequential round of `row` on each side, in batches of `sequentialBatch` requests that
 * alternate between the sides (first in `order`, then the other, then the other again…), so
 * both see the same load; before them, `sequentialWarmup` requests on each side, unmeasured,
 * collect the garbage the previous row left behind in that server's process.
 */
async function sequentialRounds(
  servers: Map<Side, BenchTargetProcess>,
  prepared: Map<Side, PreparedSessions>,
  row: SequentialRow,
  order: Side[],
): Promise<Map<Side, SequentialRound>> {
  const { sequentialRequests, sequentialBatch, sequentialWarmup } = SETTINGS;
  const rounds = new Map<Side, SequentialRound>();
  for (const side of order) {
    await servers.get(side)!.settle(KEPT_SESSIONS, false);
    for (let index = 0; index < sequentialWarmup; index++) await row.operation(prepared.get(side)![row.session]).catch(() => false);
    rounds.set(side, { requests: 0, errors: 0, cpuUs: 0, latenciesMs: [] });
  }
  for (let batch = 0; batch * sequentialBatch < sequentialRequests; batch++) {
    for (const side of batch % 2 ? [...order].reverse() : order) {
      const server = servers.get(side)!;
      const round = rounds.get(side)!;
      const cpuBefore = await server.cpuUs();
      for (let index = 0; index < sequentialBatch; index++) {
        const before = performance.now();
        const ok = await row.operation(prepared.get(side)![row.session]).catch(() => false);
        round.latenciesMs.push(performance.now() - before);
        round.requests++;
        if (!ok) round.errors++;
      }
      round.cpuUs += (await server.cpuUs()) - cpuBefore;
    }
  }
  return rounds;
}

const opsPerSec = (round: MixedRound) => (((round.iterations - round.errors) * OPERATIONS.length) / round.elapsedMs) * 1000;
const mixedCpuPerOp = (round: MixedRound) => round.cpuUs / (round.iterations * OPERATIONS.length);
const p50 = (latencies: number[]) =>
  percentile(
    [...latencies].sort((a, b) => a - b),
    50,
  );

function printMixed(mixed: Map<Side, MixedRound[]>): void {
  const { mixedClients, mixedIterations, runs } = SETTINGS;
  console.log(
    `\nMixed workload, end to end (${mixedClients} SDK clients at once, each in a new session, × ${mixedIterations} iterations of ` +
      `${OPERATIONS.join(' → ')}; one round per server per run, ${runs} runs, alternating; ops/s and server CPU: median of runs; p50: all runs pooled)`,
  );
  printTable(
    ['server', 'iterations', 'errors', 'ops/s', ...OPERATIONS.map((operation) => `p50 ${operation} ms`), 'srv CPU µs/op'],
    SIDES.map((side) => {
      const rounds = mixed.get(side)!;
      return [
        side.label,
        String(rounds.reduce((sum, round) => sum + round.iterations, 0)),
        String(rounds.reduce((sum, round) => sum + round.errors, 0)),
        median(rounds.map(opsPerSec)).toFixed(0),
        ...OPERATIONS.map((operation) => p50(rounds.flatMap((round) => round.latenciesMs[operation])).toFixed(2)),
        median(rounds.map(mixedCpuPerOp)).toFixed(0),
      ];
    }),
  );
}

function printSequential(sequential: Map<SequentialRow, Map<Side, SequentialRound[]>>): void {
  const { sequentialRequests, sequentialBatch, sequentialWarmup, sequentialPayments, manyPayments, runs } = SETTINGS;
  console.log(
    `\nOne client, sequential, end to end (${sequentialRequests} requests per server per run, in batches of ${sequentialBatch} alternating between them, after ${sequentialWarmup} unmeasured; ${runs} runs; ` +
      `a session with ${sequentialPayments} captured payments, or with ${manyPayments.toLocaleString('en')}; p50/p99: all runs pooled; server CPU: median of runs)`,
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
  const result: BudgetRow[] = [
    {
      scenario: 'mixed workload throughput, sample on SQLite',
      vs,
      target: 0.9,
      goal: 'at least',
      ratios: sample.map((round, run) => opsPerSec(round) / opsPerSec(hand[run])),
    },
    ...OPERATIONS.map((operation): BudgetRow => ({
      scenario: `mixed workload, median latency of ${operation} (speed)`,
      vs,
      goal: 'at least',
      ratios: sample.map((round, run) => p50(hand[run].latenciesMs[operation]) / p50(round.latenciesMs[operation])),
    })),
  ];
  for (const [row, bySide] of sequential) {
    const [theirs, ours] = [bySide.get(HAND)!, bySide.get(SAMPLE)!];
    result.push(
      { ...row.speed, ratios: ours.map((round, run) => p50(theirs[run].latenciesMs) / p50(round.latenciesMs)) },
      { ...row.cpu, ratios: ours.map((round, run) => round.cpuUs / round.requests / (theirs[run].cpuUs / theirs[run].requests)) },
    );
  }
  return result;
}
