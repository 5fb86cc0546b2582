import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = process.cwd();
/** What `tsc -p tsconfig.sample.json` compiles into `.sample-dist` (the sample, the library, the benches, the conformance fixture, the scripts). */
const SOURCES = ['lib', 'sample', 'bench', 'test/conformance', 'scripts'];
const CONFIGS = ['tsconfig.json', 'tsconfig.sample.json'];
/** Written after a build succeeded: the build is as new as this file. */
const STAMP = join(ROOT, '.sample-dist', '.built');
/** Held (created with `mkdir`, which is atomic) by the one test worker that builds. */
const LOCK = join(ROOT, '.sample-dist.lock');
/** A lock older than this was left by a worker that died while building. */
const STALE_LOCK_MS = 5 * 60_000;

/**
 * Builds the sample (`.sample-dist`) when a source changed since the last build, so that specs
 * starting the sample or a fixture server on the compiled library run the code under test; a
 * fresh build is a few milliseconds of `stat`. Workers running specs in parallel build once: the
 * others wait for the lock and find the build fresh.
 */
export async function ensureSampleBuilt(): Promise<void> {
  while (isStale()) {
    if (tryLock()) {
      try {
        if (isStale()) build();
      } finally {
        rmSync(LOCK, { recursive: true, force: true });
      }
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function build(): void {
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.sample.json'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  writeFileSync(STAMP, new Date().toISOString());
}

function isStale(): boolean {
  const built = mtimeOf(STAMP);
  return built === undefined || newestSource() > built;
}

function tryLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch {
    const held = mtimeOf(LOCK);
    if (held !== undefined && Date.now() - held > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    return false;
  }
}

function newestSource(): number {
  let newest = Math.max(...CONFIGS.map((file) => mtimeOf(join(ROOT, file)) ?? 0));
  for (const dir of SOURCES) newest = Math.max(newest, newestIn(join(ROOT, dir)));
  return newest;
}

/** The newest source file or folder under `dir` (a folder's time changes when a file in it is deleted). */
function newestIn(dir: string): number {
  let newest = statSync(dir).mtimeMs;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestIn(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function mtimeOf(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Jest's global setup of the e2e tier: the build before its first spec, outside any spec's timeout. */
export default ensureSampleBuilt;
