import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runCommand } from './packed-package.js';

/** The `moduleResolution` modes TypeScript supports for an app (node10 is deprecated in TypeScript 6). */
export type ModuleResolution = 'nodenext' | 'node16' | 'bundler' | 'node10';

/** The `module` each resolution mode is paired with in an app's tsconfig. */
const MODULE_OF: Record<ModuleResolution, string> = {
  nodenext: 'nodenext',
  node16: 'node16',
  bundler: 'esnext',
  node10: 'esnext',
};

const TSC = join(process.cwd(), 'node_modules', 'typescript', 'bin', 'tsc');

/** A temporary app that installed the packed package, as a user's Nest app would. */
export interface ConsumerApp {
  dir: string;
  /**
   * Type-checks the app's `.ts` files under `moduleResolution` (and emits them to `out/` with
   * `emit`); resolves with tsc's diagnostics, empty when it compiled.
   */
  compile(moduleResolution: ModuleResolution, options?: { emit?: boolean }): Promise<string>;
}

/** Links each package of this repository's `node_modules` into `modules` (offline, and fast). */
function linkDependencies(modules: string): void {
  const installed = realpathSync(join(process.cwd(), 'node_modules'));
  for (const name of readdirSync(installed)) {
    if (name !== 'nestjs-mcp-fsm' && name !== '.bin') {
      symlinkSync(join(installed, name), join(modules, name));
    }
  }
}

/** The tsconfig of a Nest app resolving modules with `moduleResolution`. */
function tsconfigFor(moduleResolution: ModuleResolution, emit: boolean): object {
  return {
    compilerOptions: {
      module: MODULE_OF[moduleResolution],
      moduleResolution,
      ...(moduleResolution === 'node10' ? { ignoreDeprecations: '6.0' } : {}),
      target: 'ES2022',
      strict: true,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
      skipLibCheck: true,
      types: ['node'],
      rootDir: 'src',
      ...(emit ? { outDir: 'out' } : { noEmit: true }),
    },
    include: ['src/**/*.ts'],
  };
}

/**
 * Creates an app in `dir` (an ESM package) whose `node_modules` holds the packed `tarball` as
 * `nestjs-mcp-fsm` and links to this repository's dependencies, with `files` (paths relative
 * to `dir/src`) as its sources.
 */
export async function createConsumerApp(dir: string, tarball: string, files: Record<string, string>): Promise<ConsumerApp> {
  const modules = join(dir, 'node_modules');
  const installed = join(modules, 'nestjs-mcp-fsm');
  mkdirSync(installed, { recursive: true });
  linkDependencies(modules);
  await runCommand('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer-app', private: true, type: 'module' }));
  for (const [path, text] of Object.entries(files)) {
    const target = join(dir, 'src', path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return {
    dir,
    compile: async (moduleResolution, { emit = false } = {}) => {
      const tsconfig = `tsconfig.${moduleResolution}.json`;
      writeFileSync(join(dir, tsconfig), JSON.stringify(tsconfigFor(moduleResolution, emit), null, 2));
      try {
        await runCommand(process.execPath, [TSC, '-p', tsconfig, '--pretty', 'false'], dir);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    },
  };
}

/** An app process started from its compiled `out/` files. */
export interface ConsumerProcess {
  child: ChildProcess;
  /** The first line the app printed to stdout. */
  firstLine: string;
  output: () => string;
  stop: () => Promise<void>;
}

/** Runs `out/<entry>` of `app` with node and waits for its first line on stdout. */
export async function startConsumerApp(app: ConsumerApp, entry: string): Promise<ConsumerProcess> {
  const child = spawn(process.execPath, [join(app.dir, 'out', entry)], {
    cwd: app.dir,
    env: { ...process.env, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const firstLine = await new Promise<string>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => reject(new Error(`the app printed no line in time:\n${output}`)), 20_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
      if (stdout.includes('\n')) {
        clearTimeout(timer);
        resolve(stdout.slice(0, stdout.indexOf('\n')));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the app exited with ${code}:\n${output}`));
    });
  });
  return {
    child,
    firstLine,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
