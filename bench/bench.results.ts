import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printTable } from './bench.table.js';

/** One row of the overhead budget: what is compared with what, the measured ratio and its ceiling. */
export interface BudgetRow {
  scenario: string;
  vs: string;
  /** The ratio must not exceed this. */
  target: number;
  /** Ours ÷ vs; absent when the row was skipped. */
  ratio?: number;
  /** Why the row was not measured. */
  skipped?: string;
}

/** `bench/results.json` in the source tree (this file runs from `.sample-dist/bench/`). */
const RESULTS_FILE = fileURLToPath(new URL('../../bench/results.json', import.meta.url));

/** Prints the budget rows (ratio to 2 decimals; "met" when it does not exceed the target) and writes them to `bench/results.json`. */
export function reportBudget(rows: BudgetRow[]): void {
  const results = rows.map(({ scenario, vs, target, ratio, skipped }) => {
    const rounded = ratio === undefined ? null : Math.round(ratio * 100) / 100;
    return { scenario, vs, ratio: rounded, target, met: rounded === null ? null : rounded <= target, ...(skipped ? { skipped } : {}) };
  });
  console.log('\nOverhead budget (server CPU per operation, or heap per live session, ours ÷ vs, measured in this run)');
  printTable(
    ['scenario', 'vs', 'ratio', 'target', 'verdict'],
    results.map((row) => [
      row.scenario,
      row.vs,
      row.ratio === null ? '-' : row.ratio.toFixed(2),
      `≤ ${row.target.toFixed(2)}`,
      row.skipped ? `skipped (${row.skipped})` : row.met ? 'met' : 'missed',
    ]),
  );
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`(written to ${relative(process.cwd(), RESULTS_FILE)})`);
}
