/** `--quick`: fewer runs, rounds, requests and churned sessions for the same rows. */
export const QUICK = process.argv.includes('--quick');

/** `--runs N` (or `--runs=N`): how many times each ratio is measured; `undefined` when not given. */
function runsArgument(argv: string[]): number | undefined {
  const index = argv.findIndex((arg) => arg === '--runs' || arg.startsWith('--runs='));
  if (index < 0) return undefined;
  const value = argv[index].includes('=') ? argv[index].slice('--runs='.length) : argv[index + 1];
  const runs = Number(value);
  if (!Number.isInteger(runs) || runs < 1) {
    throw new Error(`--runs takes a whole number of runs, at least 1 (got "${value ?? ''}")`);
  }
  return runs;
}

/** The phases of a run, in the order they run. */
export const PHASES = ['end-to-end', 'throughput', 'sessions', 'deadlines'] as const;
export type Phase = (typeof PHASES)[number];

/** `--only a,b`: the phases to run; `undefined` (all of them) when not given. */
function onlyArgument(argv: string[]): Phase[] | undefined {
  const index = argv.findIndex((arg) => arg === '--only' || arg.startsWith('--only='));
  if (index < 0) return undefined;
  const value = argv[index].includes('=') ? argv[index].slice('--only='.length) : (argv[index + 1] ?? '');
  const names = value.split(',').filter(Boolean);
  const unknown = names.filter((name) => !(PHASES as readonly string[]).includes(name));
  if (!names.length || unknown.length) {
    throw new Error(`--only takes phases separated by commas, of ${PHASES.join(', ')} (got "${value}")`);
  }
  return names as Phase[];
}

/** `--sample <dist>`: the build whose sample the end-to-end phase serves (another `.sample-dist`, for a before/after in one harness); `undefined`: this one. */
export const SAMPLE_DIST = (() => {
  const index = process.argv.indexOf('--sample');
  return index < 0 ? undefined : process.argv[index + 1];
})();

/** `--only`: the phases this run measures; a run of some phases does not write `bench/results.json` (unless `--record`). */
export const ONLY = onlyArgument(process.argv);

/** `--record`: a run of some phases replaces their rows in `bench/results.json`, keeping the other rows. */
export const RECORD = process.argv.includes('--record');

/**
 * Request and session counts of a run. `--quick` keeps what the overhead rows are about
 * (2,000 idle sessions, 1,000 finished docs per session, 100,000 PostgreSQL rows, the mixed
 * workload of 4 clients × 60 iterations) and cuts runs, rounds, requests and session churn.
 */
export const SETTINGS = {
  /**
   * Each ratio is measured this many times (a run: interleaved rounds of every scenario of a
   * phase, or one alternated pair of end-to-end rounds); rows report the median of the runs,
   * with their min and max.
   */
  runs: runsArgument(process.argv) ?? (QUICK ? 3 : 5),
  /** SDK clients per scenario, each in its own session, all driving at once. */
  clients: 4,
  /** Interleaved rounds of every throughput scenario in one run. */
  roundsPerRun: 2,
  /** Even, so the gated loop is back in `a` after every run. */
  perClient: QUICK ? 40 : 60,
  /** JIT warm-up per scenario; the servers share one process, so common code (SDK, HTTP, Nest) warms up for all. */
  warmupPerClient: QUICK ? 40 : 150,
  /** Docs each session of the 10-handle `tools/list` scenario opens and leaves live. */
  liveHandles: 10,
  /** Docs each session of the finished-workflows `tools/list` scenario opens and publishes. */
  finishedDocs: 1_000,
  /** Idle sessions held open on the server of the crowded scenario (bench.app raises `maxSessions`). */
  idleSessions: 2_000,
  /** Raw sessions being opened at once in a setup. */
  openConcurrency: 16,
  /** Sessions opened and closed on the McpModule churn row. */
  churnSessions: QUICK ? 600 : 2_000,
  /** Sessions of the comparison churn rows (bare SDK, and with a transition): enough to see bytes per session. */
  sideSessions: QUICK ? 150 : 250,
  churnWarmup: QUICK ? 60 : 100,
  /** Sessions churned at once. */
  churnConcurrency: 4,
  /** Sessions held open at the end of each churn row (once per run), to measure what one live session holds. */
  liveSessions: QUICK ? 200 : 400,
  /** Client processes of the mixed workload, each with one session per server for the whole phase, all driving at once. */
  mixedClients: 4,
  /** End-to-end runs (a mixed round and the sequential rows on each server): at least 4, the fewest whose median the targets are read on. */
  mixedRuns: Math.max(4, runsArgument(process.argv) ?? (QUICK ? 4 : 5)),
  /** Iterations (list, authorize, status, capture) of each mixed-workload client in one round. */
  mixedIterations: 60,
  /** Requests of one sequential end-to-end round (one client), per server. */
  sequentialRequests: QUICK ? 200 : 400,
  /** Requests of one batch of a sequential round: the batches alternate between the two servers. */
  sequentialBatch: 20,
  /** Unmeasured requests on each server before a sequential round. */
  sequentialWarmup: 50,
  /** Payments the sequential client authorizes and captures before it is measured, so its menu follows live handles. */
  sequentialPayments: 10,
  /** Payments of the crowded sequential session: captured payments stay live (they can be refunded), so its menu follows them all. */
  manyPayments: 1_000,
  /** Doc instances of both targets of a deadline row, so that only the timers differ: the crowded one has a pending timer (due in a month) on each. */
  deadlineInstances: 100_000,
  /** Due timers each run of the firing row fires. */
  dueTimers: 1_000,
  watchdogMs: (QUICK ? 12 : 40) * 60_000,
} as const;
