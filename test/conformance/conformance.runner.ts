import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installNpmPackage, killRunningProcesses, node22Binary, NODE22_VERSION, runProcess } from './npm-package.cache.js';

/**
 * `npm run conformance`: runs the official MCP conformance suite's server scenarios against
 * the conformance fixture and the sample, and holds the outcome against
 * `expected-failures.txt`. Protocol 2025-11-25 (the active suite) runs against both apps over
 * stateful and stateless Streamable HTTP; protocol 2026-07-28 (the scenarios that revision
 * requires, frozen at its release) runs against the fixture's stateful endpoint, which serves
 * both eras. Exits 1 on a failure that is not listed, and on a listed one that passes now.
 * Everything is bounded in time; the suite runs on Node 22 from npm, all runs at once.
 */

const SUITE_PACKAGE = '@modelcontextprotocol/conformance';
const SUITE_VERSION = '0.2.0-alpha.12';

/** A protocol revision the suite runs at. */
type SpecVersion = '2025-11-25' | '2026-07-28';

/** How the suite runs at each revision. */
interface SpecRun {
  /** The suite's arguments that choose the scenarios. */
  selection: string[];
  /** What the summary calls those scenarios. */
  description: string;
  /** A scenario's time limit in the suite (its default is 30 s). */
  scenarioTimeoutMs: number;
}

const SPEC_RUNS: Readonly<Record<SpecVersion, SpecRun>> = {
  '2025-11-25': {
    selection: ['--suite', 'active', '--spec-version', '2025-11-25'],
    description: 'active server scenarios',
    // The suite passes in about a second on loopback; a server-to-client request on stateless HTTP waits until this runs out.
    scenarioTimeoutMs: 5_000,
  },
  '2026-07-28': {
    selection: ['--requirements', '2026-07-28'],
    description: "the revision's required server scenarios, and those it runs unscored",
    // server-stateless holds its subscriptions/listen streams open for about 6 s in all.
    scenarioTimeoutMs: 20_000,
  },
};

/** The revision of `expected-failures.txt` lines that name none. */
const DEFAULT_SPEC: SpecVersion = '2025-11-25';

/** One suite run against one target (up to about 50 scenarios). */
const SUITE_TIMEOUT_MS = 300_000;
/** A server must print its endpoint within this. */
const SERVER_START_TIMEOUT_MS = 30_000;
/** The whole run, installs included. */
const RUN_TIMEOUT_MS = 600_000;

const ROOT = process.cwd();
const EXPECTED_FAILURES_FILE = join(ROOT, 'test', 'conformance', 'expected-failures.txt');

type App = 'fixture' | 'sample';
type Transport = 'stateful' | 'stateless';

/** A server the suite runs against, at one protocol revision. */
interface Target {
  app: App;
  transport: Transport;
  spec: SpecVersion;
  main: string;
  env: Record<string, string>;
}

/** A check of a scenario that failed. */
interface CheckFailure {
  /** The suite's check id (`sep-2575-server-implements-discover`). */
  check: string;
  message: string;
}

/** How one scenario went against one target. */
interface ScenarioOutcome {
  scenario: string;
  failed: boolean;
  failures: CheckFailure[];
}

interface TargetRun {
  target: Target;
  outcomes: ScenarioOutcome[];
  seconds: number;
}

/** A line of `expected-failures.txt`. */
interface ExpectedFailure {
  app: string;
  transport: string;
  spec: string;
  scenario: string;
  /** The one check of the scenario that fails; the whole scenario when absent. */
  check?: string;
  reason: string;
  line: number;
}

/** What the expected failures make of a scenario's outcome. */
interface Verdict {
  /** The lines that excuse the scenario's failed checks (all of them, or it is not excused). */
  excusedBy: ExpectedFailure[];
  /** Failed checks that no line excuses. */
  unexpected: CheckFailure[];
  /** Lines of the scenario whose failure did not happen. */
  passingNow: ExpectedFailure[];
}

/**
 * Scenarios that call the suite's own `test_*` tools, resources and prompts, which only the
 * fixture serves: against the sample they run but are not scored.
 */
const FIXTURE_ONLY = /^(tools-call-|elicitation-|resources-|prompts-|completion-)/;

/** `app/transport`, with `@<revision>` after it for runs at another revision than 2025-11-25. */
const label = ({ app, transport, spec }: Target) => `${app}/${transport}${spec === DEFAULT_SPEC ? '' : `@${spec}`}`;
const scored = (target: Target, scenario: string) => target.app === 'fixture' || !FIXTURE_ONLY.test(scenario);

const children = new Set<ChildProcess>();
/** This run's temporary directory (suite results, the sample's SQLite files). */
let workDir: string | undefined;

/** Starts a server and resolves with its endpoint once it prints `MCP endpoint: <url>`. */
async function startServer(target: Target): Promise<{ url: string; stop: () => Promise<void>; log: () => string }> {
  if (!existsSync(target.main)) {
    throw new Error(`${target.main} is missing: build with "tsc -p tsconfig.sample.json" first`);
  }
  const child = spawn(process.execPath, [target.main], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', PORT: '0', ...target.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let log = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${label(target)} did not start within ${SERVER_START_TIMEOUT_MS / 1000} s:\n${log}`)),
      SERVER_START_TIMEOUT_MS,
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      const match = /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label(target)} exited with ${code}:\n${log}`));
    });
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(kill);
    }
    children.delete(child);
  };
  return { url, stop, log: () => log };
}

/**
 * Reads the suite's `server-<scenario>-<timestamp>/checks.json` results for the scenarios it
 * ran; a scenario without one failed (`suiteEnd` says how the suite ended).
 */
async function readOutcomes(outputDir: string, ran: string[], suiteEnd: string): Promise<ScenarioOutcome[]> {
  const dirs = new Map<string, string>();
  for (const entry of await readdir(outputDir)) {
    const match = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry);
    if (match) {
      dirs.set(match[1], join(outputDir, entry));
    }
  }
  return Promise.all(
    ran.map(async (scenario): Promise<ScenarioOutcome> => {
      const dir = dirs.get(scenario);
      if (!dir || !existsSync(join(dir, 'checks.json'))) {
        return { scenario, failed: true, failures: [{ check: 'no result', message: `the suite ${suiteEnd}` }] };
      }
      const checks = JSON.parse(await readFile(join(dir, 'checks.json'), 'utf8')) as {
        id: string;
        status: string;
        errorMessage?: string;
      }[];
      const failures = checks
        .filter((check) => check.status === 'FAILURE')
        .map((check) => ({ check: check.id, message: check.errorMessage ?? 'failed' }));
      return { scenario, failed: failures.length > 0, failures };
    }),
  );
}

/** Runs the target's revision of the server suite against it. */
async function runTarget(target: Target, node22: string, suiteBin: string, dir: string): Promise<TargetRun> {
  const started = Date.now();
  const outputDir = join(dir, label(target).replace('/', '-'));
  await mkdir(outputDir, { recursive: true });
  const server = await startServer(target);
  const { selection, scenarioTimeoutMs } = SPEC_RUNS[target.spec];
  try {
    const result = await runProcess(
      node22,
      [suiteBin, 'server', '--url', server.url, ...selection, '--timeout', String(scenarioTimeoutMs), '--output-dir', outputDir],
      { cwd: outputDir, timeoutMs: SUITE_TIMEOUT_MS, env: { ...process.env, NO_COLOR: '1' } },
    );
    const ran = [...result.stdout.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((match) => match[1]);
    const end = result.timedOut ? `was stopped after ${SUITE_TIMEOUT_MS / 1000} s` : `exited with ${result.code ?? result.signal}`;
    if (ran.length === 0) {
      throw new Error(
        `the suite ran no scenario against ${label(target)} (it ${end}):\n${result.stdout}${result.stderr}\nserver log:\n${server.log()}`,
      );
    }
    const outcomes = await readOutcomes(outputDir, ran, end);
    if (outcomes.some((outcome) => outcome.failed)) {
      await writeFile(join(outputDir, 'suite.log'), result.stdout + result.stderr);
      await writeFile(join(outputDir, 'server.log'), server.log());
    }
    return { target, outcomes, seconds: (Date.now() - started) / 1000 };
  } finally {
    await server.stop();
  }
}

async function readExpectedFailures(): Promise<ExpectedFailure[]> {
  const lines = (await readFile(EXPECTED_FAILURES_FILE, 'utf8')).split('\n');
  const entries: ExpectedFailure[] = [];
  lines.forEach((text, index) => {
    const line = text.trim();
    if (line === '' || line.startsWith('#')) {
      return;
    }
    const match = /^([\w*]+)\/([\w*]+)(?:@([\d-]+|\*))?\s+([^\s#]+)(?:#(\S+))?:\s+(.+)$/.exec(line);
    if (!match) {
      throw new Error(
        `${EXPECTED_FAILURES_FILE}:${index + 1}: expected "<app>/<transport>[@<revision>] <scenario>[#<check>]: <reason>", got "${line}"`,
      );
    }
    const spec = match[3] ?? DEFAULT_SPEC;
    if (spec !== '*' && !(spec in SPEC_RUNS)) {
      throw new Error(`${EXPECTED_FAILURES_FILE}:${index + 1}: the suite runs at ${Object.keys(SPEC_RUNS).join(' and ')}, not at ${spec}`);
    }
    entries.push({ app: match[1], transport: match[2], spec, scenario: match[4], check: match[5], reason: match[6], line: index + 1 });
  });
  return entries;
}

const matches = (entry: ExpectedFailure, target: Target, scenario: string) =>
  entry.scenario === scenario &&
  (entry.app === '*' || entry.app === target.app) &&
  (entry.transport === '*' || entry.transport === target.transport) &&
  (entry.spec === '*' || entry.spec === target.spec);

/**
 * Holds one scenario's outcome against its lines: a scenario line excuses any failure of the
 * scenario, check lines excuse their checks only, so the scenario's other checks must pass.
 */
function judge(outcome: ScenarioOutcome, entries: ExpectedFailure[]): Verdict {
  const whole = entries.find((entry) => entry.check === undefined);
  if (whole) {
    return outcome.failed ? { excusedBy: [whole], unexpected: [], passingNow: [] } : { excusedBy: [], unexpected: [], passingNow: [whole] };
  }
  const failed = new Set(outcome.failures.map((failure) => failure.check));
  return {
    excusedBy: entries.filter((entry) => failed.has(entry.check!)),
    unexpected: outcome.failures.filter((failure) => !entries.some((entry) => entry.check === failure.check)),
    passingNow: entries.filter((entry) => !failed.has(entry.check!)),
  };
}

const entryName = (entry: ExpectedFailure) => `${entry.scenario}${entry.check === undefined ? '' : `#${entry.check}`}`;

/** Holds the runs against the expected failures, prints the summary, and says whether the run is green. */
function report(runs: TargetRun[], expected: ExpectedFailure[]): boolean {
  const used = new Set<ExpectedFailure>();
  /** Targets where each line's failure happened as expected, per `scenario[#check]: reason`. */
  const expectedFailures = new Map<string, string[]>();
  const unexpected: string[] = [];
  const nowPassing: string[] = [];
  const lines: string[] = [];
  const totals = { passed: 0, excused: 0, unexpected: 0, nowPassing: 0 };
  let spec: SpecVersion | undefined;
  for (const { target, outcomes, seconds } of runs) {
    if (target.spec !== spec) {
      spec = target.spec;
      lines.push(`  ${spec}, ${SPEC_RUNS[spec].description}:`);
    }
    let passed = 0;
    let excused = 0;
    let notScored = 0;
    for (const outcome of outcomes) {
      if (!scored(target, outcome.scenario)) {
        notScored++;
        continue;
      }
      const entries = expected.filter((candidate) => matches(candidate, target, outcome.scenario));
      entries.forEach((entry) => used.add(entry));
      const verdict = judge(outcome, entries);
      const name = `${label(target)} ${outcome.scenario}`;
      for (const entry of verdict.excusedBy) {
        const key = `${entryName(entry)}: ${entry.reason}`;
        expectedFailures.set(key, [...(expectedFailures.get(key) ?? []), label(target)]);
      }
      if (verdict.unexpected.length) {
        unexpected.push(`${name}\n${verdict.unexpected.map((failure) => `      ${failure.check}: ${failure.message}`).join('\n')}`);
      }
      for (const entry of verdict.passingNow) {
        nowPassing.push(`${label(target)} ${entryName(entry)} (expected-failures.txt:${entry.line}, "${entry.reason}")`);
      }
      if (verdict.unexpected.length) {
        totals.unexpected++;
      } else if (verdict.passingNow.length) {
        totals.nowPassing++;
      } else if (outcome.failed) {
        excused++;
      } else {
        passed++;
      }
    }
    totals.passed += passed;
    totals.excused += excused;
    const extra = notScored ? `, ${notScored} not scored (fixture-only scenarios)` : '';
    lines.push(
      `    ${label(target).padEnd(28)} ${String(passed).padStart(2)} passed, ${String(excused).padStart(2)} expected failures${extra}  (${seconds.toFixed(1)} s)`,
    );
  }
  const stale = expected.filter((entry) => !used.has(entry));
  const out = [
    '',
    `MCP conformance: ${SUITE_PACKAGE}@${SUITE_VERSION} on Node ${NODE22_VERSION}`,
    ...lines,
    `  total: ${totals.passed} passed, ${totals.excused} expected failures, ${totals.unexpected} unexpected failures, ${totals.nowPassing} expected failures that pass now`,
    '',
    'Expected failures (test/conformance/expected-failures.txt):',
    ...(expectedFailures.size ? [...expectedFailures].map(([key, targets]) => `  ${key} [${targets.join(', ')}]`) : ['  none']),
    '',
    'Unexpected failures:',
    ...(unexpected.length ? unexpected.map((line) => `  ${line}`) : ['  none']),
  ];
  if (nowPassing.length) {
    out.push('', 'Expected failures that pass now (delete their lines):', ...nowPassing.map((line) => `  ${line}`));
  }
  if (stale.length) {
    out.push(
      '',
      'Lines of expected-failures.txt that match no scenario run:',
      ...stale.map((entry) => `  line ${entry.line}: ${entry.app}/${entry.transport}@${entry.spec} ${entryName(entry)}`),
    );
  }
  console.log(out.join('\n'));
  return unexpected.length === 0 && nowPassing.length === 0 && stale.length === 0;
}

async function main(): Promise<number> {
  const started = Date.now();
  const expected = await readExpectedFailures();
  const [node22, suiteDir] = await Promise.all([node22Binary(), installNpmPackage(SUITE_PACKAGE, SUITE_VERSION)]);
  console.log(
    `conformance: Node ${NODE22_VERSION} and ${SUITE_PACKAGE}@${SUITE_VERSION} ready (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
  const suiteBin = join(suiteDir, 'dist', 'index.js');
  const dir = await mkdtemp(join(tmpdir(), 'mcp-fsm-conformance-'));
  workDir = dir;
  const fixtureMain = join(ROOT, '.sample-dist', 'test', 'conformance', 'conformance.main.js');
  const sampleMain = join(ROOT, '.sample-dist', 'sample', 'main.js');
  const targets: Target[] = (['stateful', 'stateless'] as const).flatMap((transport): Target[] => {
    const MCP_TRANSPORT = transport === 'stateless' ? 'stateless' : 'http';
    return [
      { app: 'fixture', transport, spec: '2025-11-25', main: fixtureMain, env: { MCP_TRANSPORT } },
      {
        app: 'sample',
        transport,
        spec: '2025-11-25',
        main: sampleMain,
        // Its own SQLite file, whatever the environment says about databases and demo auth.
        env: { MCP_TRANSPORT, SAMPLE_DB: join(dir, `sample-${transport}.sqlite`), DATABASE_URL: '', SAMPLE_AUTH: '', MCP_HANDLE_TOOLS: '' },
      },
    ];
  });
  // The same endpoint answers 2026-07-28 requests next to 2025-era sessions.
  targets.push({ app: 'fixture', transport: 'stateful', spec: '2026-07-28', main: fixtureMain, env: { MCP_TRANSPORT: 'http' } });
  const runs = await Promise.all(targets.map((target) => runTarget(target, node22, suiteBin, dir)));
  const green = report(runs, expected);
  console.log(`\nconformance: ${green ? 'OK' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  if (green) {
    await rm(dir, { recursive: true, force: true });
  } else {
    console.log(`conformance: the suite's checks.json files and the logs are in ${dir}`);
  }
  workDir = undefined;
  return green ? 0 : 1;
}

/** Kills the servers and the suite or npm processes still running, and removes the run's directory. */
function abandon(): void {
  for (const child of children) {
    child.kill('SIGKILL');
  }
  killRunningProcesses();
  if (workDir) {
    rmSync(workDir, { recursive: true, force: true });
  }
}

const watchdog = setTimeout(() => {
  console.error(`conformance: gave up after ${RUN_TIMEOUT_MS / 1000} s`);
  abandon();
  process.exit(1);
}, RUN_TIMEOUT_MS);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    abandon();
    process.exit(130);
  });
}

main().then(
  (code) => {
    clearTimeout(watchdog);
    process.exitCode = code;
  },
  (error: unknown) => {
    clearTimeout(watchdog);
    abandon();
    console.error(`conformance: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
