import { execFile } from 'node:child_process';
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { packFreshClone, runCommand, type PackedPackage } from './packed-package.js';

/**
 * The consumer apps of test/consumers, each made as its Nest CLI makes an app, installed with a
 * plain `npm install` of the packed tarball (npm's cache keeps reruns fast) in a folder of its
 * own, then built and tested with its own test runner.
 */
const CONSUMERS = 'test/consumers';

/** What a consumer folder holds in git: everything but installs and build output. */
const isSource = (path: string): boolean =>
  !relative(CONSUMERS, path)
    .split(sep)
    .some((part) => part === 'node_modules' || part === 'dist' || part.endsWith('.tsbuildinfo') || part.endsWith('.sqlite'));

const run = promisify(execFile);

/**
 * Runs `npm <args>` in `dir` (npm's own flags first, so none reaches a script); resolves with
 * what it wrote to stdout and stderr (Jest reports on stderr), rejects with both when it fails.
 */
async function npm(dir: string, ...args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('npm', ['--no-audit', '--no-fund', ...args], {
      cwd: dir,
      env: { ...process.env, npm_config_update_notifier: 'false', NO_COLOR: '1', FORCE_COLOR: '0' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${dir}:\n${stdout}\n${stderr}`, { cause: error });
  }
}

/** npm install, preferring what npm's cache holds, then the app's build (tsc -p tsconfig.build.json). */
async function installAndBuild(dir: string): Promise<void> {
  await npm(dir, 'install', '--prefer-offline');
  await npm(dir, 'run', 'build');
}

/** The databases a consumer's store suite runs on, as the environment says. */
const databases = (): string[] => [
  'SQLite',
  ...(process.env.TEST_POSTGRES_URL ? ['PostgreSQL'] : []),
  ...(process.env.TEST_MYSQL_URL ? ['MariaDB'] : []),
];

describe('apps of both Nest lines install the packed package and pass their own tests', () => {
  let workDir: string;
  let packed: PackedPackage;
  /** Both installs at once: each spends most of its time compiling better-sqlite3 on one core. */
  let installed: Record<'nest11-cjs' | 'nest12-esm', Promise<string>>;

  beforeAll(async () => {
    workDir = mkdtempSync(join(tmpdir(), 'mcp-fsm-consumers-'));
    packed = await packFreshClone(join(workDir, 'pack'));
    // Where each consumer's package.json finds it: "nestjs-mcp-fsm": "file:../nestjs-mcp-fsm.tgz".
    copyFileSync(packed.tarball, join(workDir, 'nestjs-mcp-fsm.tgz'));
    const install = (name: keyof typeof installed) => {
      const dir = join(workDir, name);
      cpSync(join(CONSUMERS, name), dir, { recursive: true, filter: isSource });
      return installAndBuild(dir).then(() => dir);
    };
    installed = { 'nest11-cjs': install('nest11-cjs'), 'nest12-esm': install('nest12-esm') };
    // Settled here so a failed install fails its own tests, not this hook.
    await Promise.allSettled(Object.values(installed));
  }, 600_000);

  afterAll(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  it('has the types arethetypeswrong expects for import and require, in every resolution mode', async () => {
    const output = await runCommand('npx', ['-y', '@arethetypeswrong/cli@0.18.5', '--format', 'table-flipped', packed.tarball], workDir);
    expect(output).toContain('No problems found');
  }, 120_000);

  describe('a NestJS 11 app as the Nest 11 CLI makes it: CommonJS, Jest with ts-jest, TypeScript 5, TypeORM 0.3', () => {
    const manifest = JSON.parse(readFileSync(join(CONSUMERS, 'nest11-cjs', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      type?: string;
    };

    it('is the CommonJS app it claims to be', () => {
      expect(manifest.type).toBeUndefined();
      expect(manifest.dependencies).toMatchObject({
        '@nestjs/common': expect.stringMatching(/^11\./),
        typeorm: expect.stringMatching(/^0\.3\./),
      });
      expect(manifest.devDependencies).toMatchObject({ jest: expect.stringMatching(/^30\./), 'ts-jest': expect.any(String) });
      expect(manifest.devDependencies.typescript).toMatch(/^5\./);
    });

    it('compiles its tools file in the card form and passes its unit tests (npm test)', async () => {
      const dir = await installed['nest11-cjs'];
      expect(await npm(dir, 'test')).toMatch(/Tests:\s+1 passed, 1 total/);
    }, 120_000);

    it('passes its e2e tests (npm run test:e2e): the app through createMcpTestClient, auth.jwt without jose, and the store contract suites on TypeORM 0.3', async () => {
      const dir = await installed['nest11-cjs'];
      const output = await npm(dir, 'run', 'test:e2e', '--', '--verbose');
      expect(output).toMatch(/Test Suites:\s+3 passed, 3 total/);
      expect(output).not.toMatch(/✕|failed/);
      expect(output).toContain('✓ runs on TypeORM 0.3');
      expect(output).toContain(
        '✓ shows the tools of each state, refuses a hidden one with FORBIDDEN, and tells the client when the menu changes',
      );
      expect(output).toContain('✓ stores the state in SQLite through TypeOrmFsmStateStore');
      // jose, an ES module, cannot load under Jest in CommonJS mode: auth.jwt says so and fails closed; the app still boots.
      expect(output).toContain('✓ boots, and answers a request with a bearer token 503 (fail closed), not as verified');
      for (const database of ['SQLite', 'PostgreSQL', 'MariaDB']) {
        const ran = databases().includes(database);
        expect({ database, ran: output.includes(`${database}: FsmStateStore contract`) }).toEqual({ database, ran });
        expect({ database, ran: output.includes(`${database}: McpSessionStore contract`) }).toEqual({ database, ran });
      }
    }, 300_000);
  });

  describe('a NestJS 12 app as the Nest 12 CLI makes it: ES modules, Vitest, TypeScript 6, TypeORM 1', () => {
    const manifest = JSON.parse(readFileSync(join(CONSUMERS, 'nest12-esm', 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
      type?: string;
    };

    it('is the ES module app it claims to be', () => {
      expect(manifest.type).toBe('module');
      expect(manifest.devDependencies.jest).toMatch(/^30\./);
      expect(manifest.dependencies).toMatchObject({
        '@nestjs/common': expect.stringMatching(/^12\./),
        typeorm: expect.stringMatching(/^1\./),
      });
      expect(manifest.devDependencies.vitest).toMatch(/^4\./);
      expect(manifest.devDependencies.typescript).toMatch(/^6\./);
    });

    it('compiles its tools file in the card form and passes its unit tests (npm test)', async () => {
      const dir = await installed['nest12-esm'];
      expect(await npm(dir, 'test')).toMatch(/Tests\s+1 passed \(1\)/);
    }, 120_000);

    it('passes the same unit and e2e specs under Jest in ES module mode (npm run test:jest)', async () => {
      const dir = await installed['nest12-esm'];
      const output = await npm(dir, 'run', 'test:jest', '--', '--verbose');
      expect(output).toMatch(/Test Suites:\s+2 passed, 2 total/);
      expect(output).toContain(
        '✓ shows the tools of each state, refuses a hidden one with FORBIDDEN, and tells the client when the menu changes',
      );
    }, 120_000);

    it('passes its e2e test (npm run test:e2e): the app through createMcpTestClient, state in SQLite', async () => {
      const dir = await installed['nest12-esm'];
      const output = await npm(dir, 'run', 'test:e2e', '--', '--reporter=verbose');
      expect(output).toMatch(/Tests\s+2 passed \(2\)/);
      expect(output).toContain(
        'shows the tools of each state, refuses a hidden one with FORBIDDEN, and tells the client when the menu changes',
      );
      expect(output).toContain('stores the state in SQLite through TypeOrmFsmStateStore');
    }, 120_000);
  });
});
