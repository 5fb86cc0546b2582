import { availableParallelism } from 'node:os';
import { BenchTargetProcess } from './bench-target.client.js';
import { runMemory } from './bench.memory.js';
import { POSTGRES_TARGETS, PostgresAdmin } from './bench.postgres.js';
import { reportBudget, type BudgetRow } from './bench.results.js';
import { SCENARIOS, type Scenario } from './bench.scenarios.js';
import { QUICK, SETTINGS } from './bench.settings.js';
import { mb } from './bench.table.js';
import { runThroughput } from './bench.throughput.js';

/** Running target processes, killed if the run aborts. */
const processes = new Set<BenchTargetProcess>();

async function main(): Promise<void> {
  const watchdog = setTimeout(() => {
    process.stderr.write(`bench: still running after ${SETTINGS.watchdogMs / 1000} s, giving up\n`);
    for (const child of processes) child.kill();
    process.exit(1);
  }, SETTINGS.watchdogMs);
  watchdog.unref();

  const startedAt = Date.now();
  const parentStart = process.memoryUsage();
  const { clients, rounds, perClient, warmupPerClient } = SETTINGS;
  console.log('re-run: npm run bench [-- --quick]   (= tsc -p tsconfig.sample.json && node .sample-dist/bench/run.js [--quick])');
  console.log(`this run: node ${[...process.execArgv, ...process.argv.slice(1)].join(' ')}${QUICK ? '  (quick: fewer rounds and requests)' : ''}`);
  console.log(
    `node ${process.version}, ${availableParallelism()} cores; all servers in one child process (--expose-gc), ` +
      `${clients} SDK clients in this process, loopback HTTP; ${rounds} interleaved rounds × ${clients}×${perClient} requests ` +
      `per scenario after ${clients}×${warmupPerClient} warm-up`,
  );

  const connected = await PostgresAdmin.connect();
  const postgres = connected instanceof PostgresAdmin ? connected : undefined;
  const skipped = new Map<Scenario, string>();
  if (!(connected instanceof PostgresAdmin)) {
    console.log(`PostgreSQL rows skipped (${connected.why}): ${connected.error}`);
    for (const scenario of SCENARIOS) if (scenario.target in POSTGRES_TARGETS) skipped.set(scenario, connected.why);
  }
  try {
    await postgres?.resetSchemas();
    const budget = await throughputPhase(skipped, postgres);

    const memoryStartedAt = Date.now();
    budget.push(await runMemory(processes));
    console.log(`(session phase: ${((Date.now() - memoryStartedAt) / 1000).toFixed(1)} s)`);

    reportBudget(budget);
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
    return { ...scenario.budget!, ratio: cpuPerOp.get(scenario.key)! / cpuPerOp.get(scenario.baseline!)! };
  });
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
