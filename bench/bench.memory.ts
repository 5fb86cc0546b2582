import { BenchTargetProcess, type BenchProcesses } from './bench-target.client.js';
import type { BenchTarget } from './bench-target.process.js';
import { BENCH_TOOLS } from './bench.machines.js';
import { median, pool } from './bench.load.js';
import type { BudgetRow } from './bench.results.js';
import { churnSession, openRawSession, type RawSession } from './bench.session.js';
import { SETTINGS } from './bench.settings.js';
import { mb, printTable } from './bench.table.js';

interface ChurnRun {
  label: string;
  target: BenchTarget;
  sessions: number;
  /** Tool each session calls once before it closes. */
  tool?: string;
}

/**
 * Scenario 8: open and close sessions (initialize, initialized, GET stream, DELETE) against a
 * fresh server, with its heap after full GC after the warm-up, half-way and at the end. A leak
 * grows the heap in proportion to the sessions, by about what a live session holds (measured
 * last, with sessions left open, once per run); JIT code and caches grow in the first half and
 * then stop. Returns the budget row of the heap one idle live session holds, McpModule ÷ bare
 * SDK, in each run.
 * `started` registers each target process, so the runner can kill it if the run aborts.
 */
export async function runMemory(started: BenchProcesses): Promise<BudgetRow> {
  const { churnSessions, sideSessions, churnWarmup, churnConcurrency, liveSessions, openConcurrency } = SETTINGS;
  const runs: ChurnRun[] = [
    { label: '8 open/close, McpModule', target: 'nest-memory', sessions: churnSessions },
    { label: '8 open/close, bare SDK', target: 'baseline', sessions: sideSessions },
    { label: '8b open/flip/close, McpModule in-memory', target: 'nest-memory', sessions: sideSessions, tool: BENCH_TOOLS.flip.name },
  ];
  const rows: string[][] = [];
  /** Per churn row, the heap one live session held in each run. */
  const perLive: number[][] = [];
  let gcAvailable = true;
  for (const run of runs) {
    const target = await BenchTargetProcess.start(run.target);
    started.add(target);
    try {
      const keys: string[] = [];
      let errors = 0;
      const churn = async (total: number) => {
        errors += await pool(total, churnConcurrency, async () => {
          keys.push(`loop:session:${await churnSession(target.url(), run.tool)}`);
        });
        await target.settle();
        return target.memory();
      };
      await churn(churnWarmup);
      keys.length = 0;
      const startedAt = Date.now();
      const before = await target.memory();
      const firstHalf = Math.floor(run.sessions / 2);
      const half = await churn(firstHalf);
      const after = await churn(run.sessions - firstHalf);
      const seconds = (Date.now() - startedAt) / 1000;
      const retained = run.tool ? (await target.request({ cmd: 'retained', keys })).retained! : 0;

      const liveBytes: number[] = [];
      for (let repeat = 0; repeat < SETTINGS.runs; repeat++) {
        const idle = repeat === 0 ? after : await target.memory();
        const live: RawSession[] = [];
        errors += await pool(liveSessions, openConcurrency, async () => {
          const session = await openRawSession(target.url());
          live.push(session);
          if (run.tool) await session.call(run.tool);
        });
        const withLive = await target.memory();
        await pool(live.length, openConcurrency, (index) => live[index].close());
        await target.settle();
        liveBytes.push((withLive.heapUsed - idle.heapUsed) / live.length);
      }
      gcAvailable &&= before.gc && after.gc;
      perLive.push(liveBytes);
      const liveMedian = median(liveBytes);
      const secondHalf = (after.heapUsed - half.heapUsed) / (run.sessions - firstHalf);
      const leaks = after.sessions > 0 || secondHalf > liveMedian / 10;
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
        (liveMedian / 1024).toFixed(1),
        mb(after.rss - before.rss),
        String(after.sessions),
        run.tool ? `${retained}/${keys.length}` : '-',
        leaks ? 'LEAK?' : 'no leak',
      ]);
    } finally {
      await target.stop();
      started.delete(target);
    }
  }
  console.log(
    `\nSessions (opened and closed ${churnConcurrency} at a time over fetch after ${churnWarmup} warm-up, in a fresh server process; heap after full GC):`,
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
    `(growth: whole run ÷ sessions; 2nd half: growth over the second half of the sessions only; live session: heap held by each of ${liveSessions} sessions left open, median of ${SETTINGS.runs} runs; ` +
      `verdict "no leak" = no session left live and 2nd-half growth < 10% of a live session)`,
  );
  if (!gcAvailable) console.log('WARNING: global.gc unavailable in the server process; heap numbers include garbage.');
  return {
    scenario: 'memory per idle stateful session',
    vs: 'bare SDK',
    target: 1,
    ratios: perLive[0].map((bytes, index) => bytes / perLive[1][index]),
  };
}
