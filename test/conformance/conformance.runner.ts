import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installNpmPackage, killRunningProcesses, node22Binary, NODE22_VERSION, runProcess } from './npm-package.cache.js';

/**
 * `npm run conformance`: runs the official MCP conformance suite's server scenarios (the
 * active suite for protocol 2025-11-25) against the conformance fixture and the sample, each
 * over stateful and stateless Streamable HTTP on loopback, and holds the outcome against
 * `expected-failures.txt`. Exits 1 on a failure that is not listed, and on a listed one that
 * passes now. Everything is bounded in time; the suite runs on Node 22 from npm.
 */

const SUITE_PACKAGE = '@modelcontextprotocol/conformance';
const SUITE_VERSION = '0.2.0-alpha.12';
const SPEC_VERSION = '2025-11-25';

/**
 * A scenario's time limit in the suite (its default is 30 s). The whole suite passes in about
 * a second on loopback; a server-to-client request on stateless HTTP waits until this runs out.
 */
const SCENARIO_TIMEOUT_MS = 5_000;
/** One suite run against one target (about 31 scenarios). */
const SUITE_TIMEOUT_MS = 300_000;
/** A server must print its endpoint within this. */
const SERVER_START_TIMEOUT_MS = 30_000;
/** The whole run, installs included. */
const RUN_TIMEOUT_MS = 600_000;

const ROOT = process.cwd();
const EXPECTED_FAILURES_FILE = join(ROOT, 'test', 'conformance', 'expected-failures.txt');

type App = 'fixture' | 'sample';
type Transport = 'stateful' | 'stateless';

/** A server the suite runs against. */
interface Target {
  app: App;
  transport: Transport;
  main: string;
  env: Record<string, string>;
}

/** How one scenario went against one target. */
interface ScenarioOutcome {
  scenario: string;
  failed: boolean;
  /** `check-id: message` of each failed check. */
  failures: string[];
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
  scenario: string;
  reason: string;
  line: number;
}

/**
 * Scenarios that call the suite's own `test_*` tools, resources and prompts, which only the
 * fixture serves: against the sample they run but are not scored.
 */
const FIXTURE_ONLY = /^(tools-call-|elicitation-|resources-|prompts-|completion-)/;

const label = ({ app, transport }: Target) => `${app}/${transport}`;
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
    const timer = setTimeout(() => reject(new Error(`${label(target)} did not start within ${SERVER_START_TIMEOUT_MS / 1000} s:\n${log}`)), SERVER_START_TIMEOUT_MS);
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
        return { scenario, failed: true, failures: [`no result: the suite ${suiteEnd}`] };
      }
      const checks = JSON.parse(await readFile(join(dir, 'checks.json'), 'utf8')) as { id: string; status: string; errorMessage?: string }[];
      const failures = checks.filter((check) => check.status === 'FAILURE').map((check) => `${check.id}: ${check.errorMessage ?? 'failed'}`);
      return { scenario, failed: failures.length > 0, failures };
    }),
  );
}

/** Runs the active 2025-11-25 server suite against one target. */
async function runTarget(target: Target, node22: string, suiteBin: string, dir: string): Promise<TargetRun> {
  const started = Date.now();
  const outputDir = join(dir, label(target).replace('/', '-'));
  await mkdir(outputDir, { recursive: true });
  const server = await startServer(target);
  try {
    const result = await runProcess(
      node22,
      [suiteBin, 'server', '--url', server.url, '--suite', 'active', '--spec-version', SPEC_VERSION, '--timeout', String(SCENARIO_TIMEOUT_MS), '--output-dir', outputDir],
      { cwd: outputDir, timeoutMs: SUITE_TIMEOUT_MS, env: { ...process.env, NO_COLOR: '1' } },
    );
    const ran = [...result.stdout.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((match) => match[1]);
    const end = result.timedOut ? `was stopped after ${SUITE_TIMEOUT_MS / 1000} s` : `exited with ${result.code ?? result.signal}`;
    if (ran.length === 0) {
      throw new Error(`the suite ran no scenario against ${label(target)} (it ${end}):\n${result.stdout}${result.stderr}\nserver log:\n${server.log()}`);
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
    const match = /^([\w*]+)\/([\w*]+)\s+(\S+):\s+(.+)$/.exec(line);
    if (!match) {
      throw new Error(`${EXPECTED_FAILURES_FILE}:${index + 1}: expected "<app>/<transport> <scenario>: <reason>", got "${line}"`);
    }
    entries.push({ app: match[1], transport: match[2], scenario: match[3], reason: match[4], line: index + 1 });
  });
  return entries;
}

const matches = (entry: ExpectedFailure, target: Target, scenario: string) =>
  entry.scenario === scenario && (entry.app === '*' || entry.app === target.app) && (entry.transport === '*' || entry.transport === target.transport);

/** Holds the runs against the expected failures, prints the summary, and says whether the run is green. */
function report(runs: TargetRun[], expected: ExpectedFailure[]): boolean {
  const used = new Set<ExpectedFailure>();
  /** Targets where each listed scenario failed as expected, per `scenario: reason`. */
  const expectedFailures = new Map<string, string[]>();
  const unexpected: string[] = [];
  const nowPassing: string[] = [];
  const lines: string[] = [];
  for (const { target, outcomes, seconds } of runs) {
    let passed = 0;
    let excused = 0;
    let notScored = 0;
    for (const outcome of outcomes) {
      if (!scored(target, outcome.scenario)) {
        notScored++;
        continue;
      }
      const entry = expected.find((candidate) => matches(candidate, target, outcome.scenario));
      const name = `${label(target)} ${outcome.scenario}`;
      if (entry) {
        used.add(entry);
      }
      if (outcome.failed && entry) {
        excused++;
        const key = `${outcome.scenario}: ${entry.reason}`;
        expectedFailures.set(key, [...(expectedFailures.get(key) ?? []), label(target)]);
      } else if (outcome.failed) {
        unexpected.push(`${name}\n${outcome.failures.map((failure) => `      ${failure}`).join('\n')}`);
      } else if (entry) {
        nowPassing.push(`${name} (expected-failures.txt:${entry.line}, "${entry.reason}")`);
      } else {
        passed++;
      }
    }
    const extra = notScored ? `, ${notScored} not scored (fixture-only scenarios)` : '';
    lines.push(`  ${label(target).padEnd(18)} ${String(passed).padStart(2)} passed, ${String(excused).padStart(2)} expected failures${extra}  (${seconds.toFixed(1)} s)`);
  }
  const stale = expected.filter((entry) => !used.has(entry));
  const total = runs.reduce((sum, run) => sum + run.outcomes.filter((outcome) => scored(run.target, outcome.scenario)).length, 0);
  const excused = [...expectedFailures.values()].reduce((sum, targets) => sum + targets.length, 0);
  const passed = total - excused - unexpected.length - nowPassing.length;
  const out = [
    '',
    `MCP conformance: ${SUITE_PACKAGE}@${SUITE_VERSION}, active server scenarios for ${SPEC_VERSION}, on Node ${NODE22_VERSION}`,
    ...lines,
    `  total: ${passed} passed, ${excused} expected failures, ${unexpected.length} unexpected failures, ${nowPassing.length} expected failures that pass now`,
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
    out.push('', 'Lines of expected-failures.txt that match no scenario run:', ...stale.map((entry) => `  line ${entry.line}: ${entry.app}/${entry.transport} ${entry.scenario}`));
  }
  console.log(out.join('\n'));
  return unexpected.length === 0 && nowPassing.length === 0 && stale.length === 0;
}

async function main(): Promise<number> {
  const started = Date.now();
  const expected = await readExpectedFailures();
  const [node22, suiteDir] = await Promise.all([node22Binary(), installNpmPackage(SUITE_PACKAGE, SUITE_VERSION)]);
  console.log(`conformance: Node ${NODE22_VERSION} and ${SUITE_PACKAGE}@${SUITE_VERSION} ready (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  const suiteBin = join(suiteDir, 'dist', 'index.js');
  const dir = await mkdtemp(join(tmpdir(), 'mcp-fsm-conformance-'));
  workDir = dir;
  const fixtureMain = join(ROOT, '.sample-dist', 'test', 'conformance', 'conformance.main.js');
  const sampleMain = join(ROOT, '.sample-dist', 'sample', 'main.js');
  const targets: Target[] = (['stateful', 'stateless'] as const).flatMap((transport): Target[] => {
    const MCP_TRANSPORT = transport === 'stateless' ? 'stateless' : 'http';
    return [
      { app: 'fixture', transport, main: fixtureMain, env: { MCP_TRANSPORT } },
      {
        app: 'sample',
        transport,
        main: sampleMain,
        // Its own SQLite file, whatever the environment says about databases and demo auth.
        env: { MCP_TRANSPORT, SAMPLE_DB: join(dir, `sample-${transport}.sqlite`), DATABASE_URL: '', SAMPLE_AUTH: '', MCP_HANDLE_TOOLS: '' },
      },
    ];
  });
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
