import { availableParallelism } from 'node:os';
import { BenchTargetProcess, type BenchProcesses } from './bench-target.client.js';
import { runEndToEnd } from './bench.end-to-end.js';
import { runMemory } from './bench.memory.js';
import { POSTGRES_TARGETS, PostgresAdmin } from './bench.postgres.js';
import { reportBudget, type BudgetRow } from './bench.results.js';
import { measureFiring } from './bench.deadline-firing.js';
import { DEADLINE_SCENARIOS, SCENARIOS, type Scenario } from './bench.scenarios.js';
import { ONLY, QUICK, RECORD, SETTINGS, type Phase } from './bench.settings.js';
import { mb, printTable } from './bench.table.js';
import { median } from './bench.load.js';
import { runThroughput } from './bench.throughput.js';

/** Running target processes, killed if the run aborts. */
const processes: BenchProcesses = new Set();

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench: still running after ${SETTINGS.watchdogMs / 1000} s, giving up\n`);
    for (const child of processes) child.kill();
    process.exit(1);
  }, SETTINGS.watchdogMs);
  watchdog.unref();
  // Ctrl-C or a kill: the servers and clients go with the runner (the end-to-end ones have no IPC channel to notice).
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of processes) child.kill();
      process.exit(130);
    });
  }

  const startedAt = Date.now();
  const parentStart = process.memoryUsage();
  const { clients, runs, roundsPerRun, perClient, warmupPerClient } = SETTINGS;
  console.log(
    're-run: npm run bench [-- --quick] [-- --runs N] [-- --only end-to-end,throughput,sessions,deadlines [--record]]   (= tsc -p tsconfig.sample.json && node .sample-dist/bench/run.js …)',
  );
  console.log(
    `this run: node ${[...process.execArgv, ...process.argv.slice(1)].join(' ')}${QUICK ? '  (quick: fewer runs, rounds and requests)' : ''}`,
  );
  console.log(
    `node ${process.version}, ${availableParallelism()} cores; the CPU rows' servers in one child process (--expose-gc), the end-to-end rows' two servers in one each (the sample as npm run sample starts it) with their ${SETTINGS.mixedClients} mixed-workload clients in one each, ` +
      `${clients} SDK clients of the CPU rows in this process, loopback HTTP; ${runs} runs of ${roundsPerRun} interleaved rounds × ${clients}×${perClient} requests ` +
      `per scenario after ${clients}×${warmupPerClient} warm-up`,
  );

  const measures = (phase: Phase) => !ONLY || ONLY.includes(phase);
  const connected = measures('throughput') || measures('deadlines') ? await PostgresAdmin.connect() : undefined;
  const postgres = connected instanceof PostgresAdmin ? connected : undefined;
  const skipped = new Map<Scenario, string>();
  const noPostgres = connected && !(connected instanceof PostgresAdmin) ? connected.why : undefined;
  if (connected && !(connected instanceof PostgresAdmin)) {
    console.log(`PostgreSQL rows skipped (${connected.why}): ${connected.error}`);
    for (const scenario of [...SCENARIOS, ...DEADLINE_SCENARIOS])
      if (scenario.target in POSTGRES_TARGETS) skipped.set(scenario, connected.why);
  }
  try {
    const results: BudgetRow[] = [];
    if (measures('end-to-end')) {
      const endToEndStartedAt = Date.now();
      results.push(...(await runEndToEnd(processes)));
      console.log(`(end-to-end phase: ${((Date.now() - endToEndStartedAt) / 1000).toFixed(1)} s including server start-up and warm-up)`);
    }
    if (measures('throughput')) {
      await postgres?.resetSchemas();
      results.push(...(await throughputPhase(skipped, postgres)));
    }
    if (measures('sessions')) {
      const memoryStartedAt = Date.now();
      results.push(await runMemory(processes));
      console.log(`(session phase: ${((Date.now() - memoryStartedAt) / 1000).toFixed(1)} s)`);
    }
    if (measures('deadlines')) {
      await postgres?.resetSchemas();
      results.push(...(await deadlinesPhase(skipped, noPostgres, postgres)));
    }
    reportBudget(results, { write: !ONLY ? 'all' : RECORD ? 'merge' : false });
  } finally {
    // A failed run's servers go first: their connections would keep the schemas in use.
    for (const child of processes) child.kill();
    await postgres?.dropSchemas();
    await postgres?.close();
  }

  const parentEnd = process.memoryUsage();
  console.log(
    `\nbench runner (clients): RSS ${mb(parentStart.rss)} → ${mb(parentEnd.rss)} MB, heap ${mb(parentStart.heapUsed)} → ${mb(parentEnd.heapUsed)} MB` +
      ` (no forced GC); total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
  );
}

/** Runs the throughput scenarios on one server process; returns their budget rows. */
async function throughputPhase(skipped: Map<Scenario, string>, postgres?: PostgresAdmin): Promise<BudgetRow[]> {
  const startedAt = Date.now();
  const targets = new Set(SCENARIOS.filter((scenario) => !skipped.has(scenario)).map((scenario) => scenario.target));
  const servers = await BenchTargetProcess.start(...targets);
  processes.add(servers);
  const serverStart = await servers.memory();

  const cpuPerOp = await runThroughput(servers, SCENARIOS, skipped, postgres);
  console.log(`(throughput phase: ${((Date.now() - startedAt) / 1000).toFixed(1)} s including server start-up, setup and warm-up)`);

  await servers.settle();
  const serverEnd = await servers.memory();
  console.log(
    `\nServer process over the throughput run (all ${targets.size} servers; heap after full GC): ` +
      `heap ${mb(serverStart.heapUsed)} → ${mb(serverEnd.heapUsed)} MB (+${mb(serverEnd.heapUsed - serverStart.heapUsed)}), ` +
      `RSS ${mb(serverStart.rss)} → ${mb(serverEnd.rss)} MB, live sessions at end ${serverEnd.sessions}`,
  );
  await servers.stop();
  processes.delete(servers);

  return SCENARIOS.filter((scenario) => scenario.budget).map((scenario) => {
    const why = skipped.get(scenario);
    if (why) return { ...scenario.budget!, skipped: why };
    const baseline = cpuPerOp.get(scenario.baseline!)!;
    return { ...scenario.budget!, ratios: cpuPerOp.get(scenario.key)!.map((cpu, run) => cpu / baseline[run]) };
  });
}

/**
 * The deadline rows: a transition's server CPU with 100,000 pending timers in the store against
 * none (throughput rounds on one server process), then 1,000 due timers fired by the scheduler
 * in this process, on SQLite and PostgreSQL.
 */
async function deadlinesPhase(
  skipped: Map<Scenario, string>,
  noPostgres: string | undefined,
  postgres?: PostgresAdmin,
): Promise<BudgetRow[]> {
  const startedAt = Date.now();
  const targets = new Set(DEADLINE_SCENARIOS.filter((scenario) => !skipped.has(scenario)).map((scenario) => scenario.target));
  const servers = await BenchTargetProcess.start(...targets);
  processes.add(servers);
  const cpuPerOp = await runThroughput(servers, DEADLINE_SCENARIOS, skipped, postgres);
  await servers.stop();
  processes.delete(servers);
  const rows: BudgetRow[] = DEADLINE_SCENARIOS.filter((scenario) => scenario.budget).map((scenario) => {
    const why = skipped.get(scenario);
    if (why) return { ...scenario.budget!, skipped: why };
    const baseline = cpuPerOp.get(scenario.baseline!)!;
    return { ...scenario.budget!, ratios: cpuPerOp.get(scenario.key)!.map((cpu, run) => cpu / baseline[run]) };
  });

  const due = SETTINGS.dueTimers.toLocaleString('en');
  const firing: Array<[string, 'sqlite' | 'postgres']> = [
    ['SQLite', 'sqlite'],
    ['PostgreSQL', 'postgres'],
  ];
  console.log(`\nFiring ${due} due timers (WorkflowDeadlineScheduler.poll until it claims none; each run ${due} new instances)`);
  const table: string[][] = [];
  for (const [name, database] of firing) {
    const row: BudgetRow = {
      scenario: `firing ${due} due timers, ${name}`,
      vs: 'seconds, end to end (scheduler polls until all moved)',
      target: 2,
      unit: 's',
    };
    if (database === 'postgres' && noPostgres) {
      rows.push({ ...row, skipped: noPostgres });
      table.push([name, `skipped (${noPostgres})`, '-', '-']);
      continue;
    }
    const measured = await measureFiring(database, SETTINGS.runs);
    const seconds = measured.map((run) => run.seconds);
    rows.push({ ...row, ratios: seconds });
    table.push([
      name,
      seconds.map((value) => value.toFixed(2)).join(', '),
      String(measured[0].polls),
      `${Math.round(SETTINGS.dueTimers / median(seconds))}`,
    ]);
  }
  printTable(['database', 'seconds per run', 'polls per run', 'timers/s (median)'], table);
  console.log(`(deadline phase: ${((Date.now() - startedAt) / 1000).toFixed(1)} s including server start-up, setup and warm-up)`);
  return rows;
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
