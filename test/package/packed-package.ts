import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The fields of the packed `package.json` the package tests read. */
export interface PackedManifest {
  name: string;
  version: string;
  /** Each subpath's files per condition (`import`: the ES module build, `require`: the CommonJS build); `./package.json` itself. */
  exports: Record<string, string | Record<'import' | 'require', { types: string; default: string }>>;
  typesVersions?: Record<string, Record<string, string[]>>;
  engines?: { node?: string };
  [field: string]: unknown;
}

/** The package as `npm pack` makes it from a fresh clone of this working tree. */
export interface PackedPackage {
  /** The `.tgz` file. */
  tarball: string;
  /** Where the tarball was extracted (its `package/` folder). */
  dir: string;
  /** Every file in the tarball, relative to its root, sorted. */
  files: string[];
  manifest: PackedManifest;
}

/** Runs `command` and returns its stdout; a failure carries the command's stdout and stderr. */
export async function runCommand(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await run(command, args, {
      cwd,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', NO_COLOR: '1' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`, { cause: error });
  }
}

/** Every file under `dir`, relative to it, sorted. */
export function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * Copies what a clone of this working tree would hold into `dir`: the files git tracks and the
 * new ones it does not ignore (so no `dist/`), with this repository's `node_modules` linked in.
 */
async function cloneWorkingTree(dir: string): Promise<void> {
  const listing = await runCommand('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], process.cwd());
  for (const file of new Set(listing.split('\0'))) {
    if (file === '' || file === 'node_modules' || file.startsWith('node_modules/')) {
      continue;
    }
    const target = join(dir, file);
    mkdirSync(dirname(target), { recursive: true });
    try {
      cpSync(file, target);
    } catch (error) {
      // A tracked file deleted in the working tree is not part of the clone either.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw error;
      }
    }
  }
  symlinkSync(join(process.cwd(), 'node_modules'), join(dir, 'node_modules'));
}

/**
 * Packs the package as a fresh clone would be packed: `npm pack` (whose `prepack` builds
 * `dist/`) into `workDir`, then lists the tarball's files.
 */
export async function packFreshClone(workDir: string): Promise<PackedPackage> {
  const clone = join(workDir, 'clone');
  await cloneWorkingTree(clone);
  const destination = join(workDir, 'packed');
  mkdirSync(destination);
  await runCommand('npm', ['pack', '--pack-destination', destination], clone);
  const tarballs = readdirSync(destination).filter((name) => name.endsWith('.tgz'));
  if (tarballs.length !== 1) {
    throw new Error(`npm pack left ${tarballs.length} tarballs in ${destination}`);
  }
  const tarball = join(destination, tarballs[0]);
  const extracted = join(workDir, 'extracted');
  mkdirSync(extracted);
  await runCommand('tar', ['-xzf', tarball, '-C', extracted, '--strip-components=1'], workDir);
  const manifest = JSON.parse(readFileSync(join(extracted, 'package.json'), 'utf8')) as PackedManifest;
  return { tarball, dir: extracted, files: listFiles(extracted), manifest };
}
