import type { BenchTargetProcess } from './bench-target.client.js';
import { closeClient, drive, median, openClient, percentile, type BenchClient, type LoadSample } from './bench.load.js';
import type { PostgresAdmin } from './bench.postgres.js';
import type { Scenario } from './bench.scenarios.js';
import { SETTINGS } from './bench.settings.js';
import { printTable } from './bench.table.js';

interface Outcome {
  scenario: Scenario;
  /** Per round, in the order driven. */
  samples: LoadSample[];
  /** Per round: CPU of the server process and of the PostgreSQL backends serving the targets, per request. */
  cpuPerOp: number[];
  /** Per round: CPU of the PostgreSQL backends alone, per request. */
  dbCpuPerOp: number[];
}

/** A scenario's figures over some rounds: ops/s and CPU per request (medians of the rounds), latency percentiles of the rounds pooled. */
interface Figures {
  requests: number;
  errors: number;
  opsPerSec: number;
  p50: number;
  p99: number;
  cpuPerOp: number;
  dbCpuPerOp: number;
}

/** CPU used so far by the server process, and by each PostgreSQL backend of the targets (by pid). */
interface CpuSample {
  processUs: number;
  backendsUs: Map<number, number>;
}

/**
 * Opens each scenario's sessions, runs its setup and warm-up, then drives the scenarios in
 * interleaved rounds (1,2,3…,1,2,3…) so that drift in machine load spreads over all of them,
 * `SETTINGS.runs` runs of `SETTINGS.roundsPerRun` rounds; prints the throughput table (a
 * `skipped` scenario with the reason why) and returns, by key, the server CPU per request of
 * each scenario that ran in each run (the median of the run's rounds).
 */
export async function runThroughput(
  servers: BenchTargetProcess,
  all: Scenario[],
  skipped: Map<Scenario, string>,
  postgres?: PostgresAdmin,
): Promise<Map<string, number[]>> {
  const scenarios = all.filter((scenario) => !skipped.has(scenario));
  const sessions = new Map<string, BenchClient[]>();
  const cleanups: (() => Promise<void>)[] = [];
  for (const scenario of scenarios) {
    const url = servers.url(scenario.target);
    const clients = await Promise.all(Array.from({ length: SETTINGS.clients }, () => openClient(url)));
    const cleanup = await scenario.setup?.(clients, url);
    if (cleanup) cleanups.push(cleanup);
    const warm = await drive(clients, SETTINGS.warmupPerClient, scenario.operation);
    if (warm.errors) throw new Error(`${scenario.label}: ${warm.errors} of ${warm.requests} warm-up requests failed`);
    sessions.set(scenario.key, clients);
  }

  const sampleCpu = async (): Promise<CpuSample> => ({
    processUs: await servers.cpuUs(),
    backendsUs: (await postgres?.backendCpu()) ?? new Map(),
  });
  const outcomes = scenarios.map((scenario): Outcome => ({ scenario, samples: [], cpuPerOp: [], dbCpuPerOp: [] }));
  for (let round = 0; round < SETTINGS.runs * SETTINGS.roundsPerRun; round++) {
    for (const outcome of outcomes) {
      const before = await sampleCpu();
      const sample = await drive(sessions.get(outcome.scenario.key)!, SETTINGS.perClient, outcome.scenario.operation);
      const after = await sampleCpu();
      let backendUs = 0;
      for (const [pid, us] of after.backendsUs) backendUs += us - (before.backendsUs.get(pid) ?? 0);
      outcome.samples.push(sample);
      outcome.cpuPerOp.push((after.processUs - before.processUs + backendUs) / sample.requests);
      outcome.dbCpuPerOp.push(backendUs / sample.requests);
    }
  }
  for (const clients of sessions.values()) await Promise.all(clients.map(closeClient));
  for (const cleanup of cleanups) await cleanup();
  return printThroughput(all, outcomes, skipped, postgres);
}

/** The rounds of each run of an outcome. */
function byRun<T>(rounds: T[]): T[][] {
  return Array.from({ length: SETTINGS.runs }, (_, run) => rounds.slice(run * SETTINGS.roundsPerRun, (run + 1) * SETTINGS.roundsPerRun));
}

function figures(samples: LoadSample[], cpuPerOp: number[], dbCpuPerOp: number[]): Figures {
  const latencies = samples.flatMap((sample) => sample.latenciesMs).sort((a, b) => a - b);
  return {
    requests: samples.reduce((sum, sample) => sum + sample.requests, 0),
    errors: samples.reduce((sum, sample) => sum + sample.errors, 0),
    opsPerSec: median(samples.map((sample) => (sample.requests / sample.elapsedMs) * 1000)),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuPerOp: median(cpuPerOp),
    dbCpuPerOp: median(dbCpuPerOp),
  };
}

function printThroughput(
  all: Scenario[],
  outcomes: Outcome[],
  skipped: Map<Scenario, string>,
  postgres?: PostgresAdmin,
): Map<string, number[]> {
  const whole = new Map(outcomes.map((outcome) => [outcome.scenario.key, figures(outcome.samples, outcome.cpuPerOp, outcome.dbCpuPerOp)]));
  const runs = new Map(
    outcomes.map(({ scenario, samples, cpuPerOp, dbCpuPerOp }) => {
      const [samplesByRun, cpuByRun, dbByRun] = [byRun(samples), byRun(cpuPerOp), byRun(dbCpuPerOp)];
      return [scenario.key, samplesByRun.map((rounds, run) => figures(rounds, cpuByRun[run], dbByRun[run]))] as const;
    }),
  );
  const backends = postgres?.seesBackendCpu
    ? 'plus the PostgreSQL backends serving it'
    : `PostgreSQL backends not counted (${postgres ? 'not on this machine' : 'no PostgreSQL'})`;
  console.log(
    `\nThroughput and latency (ops/s and server CPU: median of rounds; p50/p99: all rounds pooled; server CPU: per request, whole server process, ${backends}; ` +
      `ratios: median of the ${SETTINGS.runs} runs' ratios, each run ${SETTINGS.roundsPerRun} rounds)`,
  );
  /** Per run, `pick(ours) ÷ pick(baseline)`. */
  const ratios = (key: string, baseline: string, pick: (run: Figures) => number) =>
    runs.get(key)!.map((run, index) => pick(run) / pick(runs.get(baseline)![index]));
  printTable(
    [
      'scenario',
      'requests',
      'errors',
      'ops/s',
      'p50 ms',
      'p99 ms',
      'srv CPU µs/op',
      'of which DB',
      'vs',
      'ops/s ratio',
      'p50 ratio',
      'CPU/op ratio',
      'CPU/op min–max',
    ],
    all.map((scenario) => {
      const own = whole.get(scenario.key);
      if (!own) return [scenario.label, `skipped (${skipped.get(scenario)})`, ...Array<string>(11).fill('-')];
      const base = scenario.baseline;
      const cpu = base ? ratios(scenario.key, base, (run) => run.cpuPerOp) : [1];
      return [
        scenario.label,
        String(own.requests),
        String(own.errors),
        own.opsPerSec.toFixed(0),
        own.p50.toFixed(2),
        own.p99.toFixed(2),
        own.cpuPerOp.toFixed(0),
        own.dbCpuPerOp.toFixed(0),
        base ?? '(baseline)',
        median(base ? ratios(scenario.key, base, (run) => run.opsPerSec) : [1]).toFixed(2),
        median(base ? ratios(scenario.key, base, (run) => run.p50) : [1]).toFixed(2),
        median(cpu).toFixed(2),
        `${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)}`,
      ];
    }),
  );
  return new Map([...runs].map(([key, perRun]) => [key, perRun.map((run) => run.cpuPerOp)]));
}
