/** `--quick`: fewer rounds, requests and churned sessions for the same rows. */
export const QUICK = process.argv.includes('--quick');

/**
 * Request and session counts of a run. `--quick` keeps what the overhead rows are about
 * (2,000 idle sessions, 1,000 finished docs per session, 100,000 PostgreSQL rows) and cuts
 * rounds, requests and session churn.
 */
export const SETTINGS = {
  /** SDK clients per scenario, each in its own session, all driving at once. */
  clients: 4,
  rounds: QUICK ? 5 : 7,
  /** Even, so the gated loop is back in `a` after every run. */
  perClient: QUICK ? 40 : 60,
  /** JIT warm-up per scenario; the servers share one process, so common code (SDK, HTTP, Nest) warms up for all. */
  warmupPerClient: QUICK ? 60 : 150,
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
  /** Sessions held open at the end of each churn row, to measure what one live session holds. */
  liveSessions: QUICK ? 200 : 400,
  watchdogMs: 5 * 60_000,
} as const;
