import { execFileSync } from 'node:child_process';

/** Builds the sample once per test run: the sample e2e specs start it as child processes. */
export default function globalSetup() {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.sample.json'], { stdio: 'inherit' });
}
