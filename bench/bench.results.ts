import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './bench.load.js';
import { printTable } from './bench.table.js';

/** One row of the results: what is compared with what, the ratio measured in each run and its bound. */
export interface BudgetRow {
  scenario: string;
  vs: string;
  /** The bound the median ratio must keep; absent on a row that only informs. */
  target?: number;
  /**
   * `at most`: the ratio is a cost (ours ÷ theirs) and `target` a ceiling; `at least`: the ratio
   * is a speed (ours ÷ theirs in throughput, theirs ÷ ours in latency) and `target` a floor.
   * @default 'at most'
   */
  goal?: 'at most' | 'at least';
  /** The ratio of each run; absent when the row was skipped. */
  ratios?: number[];
  /** Why the row was not measured. */
  skipped?: string;
  /** The unit of a row that measures a time, not a ratio (`ratio`, `min`, `max` and `target` are then in it). */
  unit?: 's';
}

/** A row as `bench/results.json` holds it: the median of the runs, with their min and max. */
export interface ResultRow {
  scenario: string;
  vs: string;
  ratio: number | null;
  target: number | null;
  goal: 'at most' | 'at least';
  min: number | null;
  max: number | null;
  runs: number;
  met: boolean | null;
  skipped?: string;
  unit?: 's';
}

/** `bench/results.json` in the source tree (this file runs from `.sample-dist/bench/`). */
const RESULTS_FILE = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The median, min and max of a row's runs (2 decimals), and whether the median keeps the target. */
export function summarize({ scenario, vs, target, goal = 'at most', ratios, skipped, unit }: BudgetRow): ResultRow {
  const measured = ratios?.filter(Number.isFinite) ?? [];
  const ratio = measured.length ? round2(median(measured)) : null;
  const met = ratio === null || target === undefined ? null : goal === 'at most' ? ratio <= target : ratio >= target;
  return {
    scenario,
    vs,
    ratio,
    target: target ?? null,
    goal,
    min: measured.length ? round2(Math.min(...measured)) : null,
    max: measured.length ? round2(Math.max(...measured)) : null,
    runs: measured.length,
    met,
    ...(skipped ? { skipped } : {}),
    ...(unit ? { unit } : {}),
  };
}

/**
 * Prints the rows (median of runs, min and max; "met" when the median keeps the target) and
 * writes them to `bench/results.json`: `all` (a run of every phase) writes the file anew,
 * `merge` (a run of some phases with `--record`) replaces the rows of the same scenario and
 * keeps the others.
 */
export function reportBudget(rows: BudgetRow[], { write }: { write: 'all' | 'merge' | false }): void {
  const results = rows.map(summarize);
  const fixed = (value: number | null, unit?: string) => (value === null ? '-' : `${value.toFixed(2)}${unit ? ` ${unit}` : ''}`);
  console.log(
    '\nResults (each ratio measured in every run against its baseline in the same run; median of the runs, min and max beside it)',
  );
  printTable(
    ['scenario', 'vs', 'ratio', 'min', 'max', 'runs', 'target', 'verdict'],
    results.map((row) => [
      row.scenario,
      row.vs,
      fixed(row.ratio, row.unit),
      fixed(row.min, row.unit),
      fixed(row.max, row.unit),
      String(row.runs),
      row.target === null ? '-' : `${row.goal === 'at most' ? '≤' : '≥'} ${fixed(row.target, row.unit)}`,
      row.skipped ? `skipped (${row.skipped})` : row.met === null ? '(informs)' : row.met ? 'met' : 'missed',
    ]),
  );
  if (!write) {
    console.log(`(${relative(process.cwd(), RESULTS_FILE)} is written by a run of every phase, or of some with --record)`);
    return;
  }
  writeFileSync(RESULTS_FILE, `${JSON.stringify(write === 'merge' ? merged(results) : results, null, 2)}\n`);
  console.log(`(${write === 'merge' ? 'recorded in' : 'written to'} ${relative(process.cwd(), RESULTS_FILE)})`);
}

/** The rows of `bench/results.json` with those of `results` replaced in place (by scenario), and the new ones after them. */
function merged(results: ResultRow[]): ResultRow[] {
  const fresh = new Map(results.map((row) => [row.scenario, row]));
  const recorded = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as ResultRow[];
  const kept = recorded.map((row) => fresh.get(row.scenario) ?? row);
  const known = new Set(recorded.map((row) => row.scenario));
  return [...kept, ...results.filter((row) => !known.has(row.scenario))];
}
