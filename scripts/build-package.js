/**
 * Builds `dist/`: the ES module build (`dist/esm`, what `import` resolves) and the CommonJS
 * build (`dist/cjs`, what `require` resolves), each with its declarations and source maps
 * into `lib/`, and each marked with the module system its `.js` and `.d.ts` files are in.
 */
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync('dist', { recursive: true, force: true });
for (const [project, type, dir] of [
  ['tsconfig.build.json', 'module', 'dist/esm'],
  ['tsconfig.build-cjs.json', 'commonjs', 'dist/cjs'],
]) {
  execFileSync(process.execPath, [tsc, '-p', project], { stdio: 'inherit' });
  writeFileSync(`${dir}/package.json`, `${JSON.stringify({ type })}\n`);
}
