import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Reported } from './type-check.js';

const ROOT = process.cwd();
/** TypeScript 7 (the native compiler), installed as the dev dependency `typescript-7`. */
const TSC7 = join(ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc');
/** Inside the repository, so the files resolve its node_modules; ignored by git, the linters and jest. */
const SCRATCH = join(ROOT, 'node_modules', '.cache', 'nestjs-mcp-fsm-tsc7');

const run = promisify(execFile);

/**
 * Type-checks `files` (paths relative to a scratch folder → text) with TypeScript 7's `tsc`
 * under this repository's compiler options, and returns its errors by file (as `files` names
 * them). Files import this repository's sources by absolute path.
 */
export async function tsc7Errors(files: Record<string, string>): Promise<Record<string, Reported[]>> {
  mkdirSync(SCRATCH, { recursive: true });
  const dir = mkdtempSync(join(SCRATCH, 'check-'));
  try {
    for (const [file, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), text);
    }
    const tsconfig = { extends: join(ROOT, 'tsconfig.json'), compilerOptions: { noEmit: true }, include: [], files: Object.keys(files) };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
    const output = await run(process.execPath, [TSC7, '-p', join(dir, 'tsconfig.json'), '--pretty', 'false'], { cwd: dir }).then(
      ({ stdout }) => stdout,
      (error: { stdout?: string; stderr?: string }) => {
        // tsc reports type errors on stdout and exits non-zero; nothing there means it did not run.
        if (!error.stdout) throw new Error(`TypeScript 7 did not run (${TSC7}): ${error.stderr ?? String(error)}`);
        return error.stdout;
      },
    );
    const errors: Record<string, Reported[]> = {};
    for (const match of output.matchAll(/^(.+?)\((\d+),\d+\): error TS\d+: (.*(?:\n {2}.*)*)/gm)) {
      const file = Object.keys(files).find((name) => resolve(dir, name) === resolve(dir, match[1])) ?? match[1];
      (errors[file] ??= []).push({ line: Number(match[2]), message: match[3].replace(/\n {2}/g, '\n') });
    }
    return errors;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
