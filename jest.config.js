/**
 * Jest in ESM mode: run through `node --experimental-vm-modules` (see package.json). Three tiers,
 * one project each (CONTRIBUTING.md says which to run when):
 * - `unit`: the specs beside the code (`lib/`), pure or on SQLite, safe in parallel;
 * - `integration`: apps in this process (gate, protocol, HTTP, stores, relays) on the test databases;
 * - `e2e`: child processes (the sample, stdio servers, the MCP Inspector), Chromium, packed installs,
 *   and the faults cut under them.
 * A spec that starts the sample builds it first (`test/utils/sample-build.ts`), whichever tier runs it.
 */
const base = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }],
  },
};

/** Specs of the e2e tier (paths under the root): whole folders, and the in-process folders' specs that start processes or a browser. */
const e2e = [
  '/test/sample/.+\\.spec\\.ts$',
  '/test/faults/.+\\.spec\\.ts$',
  '/test/console/.+browser\\.e2e\\.spec\\.ts$',
  '/test/console/console-replicas\\.e2e\\.spec\\.ts$',
  '/test/package/(consumers|package)\\.e2e\\.spec\\.ts$',
  '/test/protocol/(inspector-cli.*|stdio-logger)\\.e2e\\.spec\\.ts$',
  '/test/gate/auth-guards\\.e2e\\.spec\\.ts$',
  '/test/sessions/state-cache-replicas\\.e2e\\.spec\\.ts$',
  '/test/tasks/tasks-sigkill\\.e2e\\.spec\\.ts$',
];

export default {
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/lib/**/*.spec.ts'] },
    {
      ...base,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/**/*.spec.ts'],
      // The consumer apps run their own test runners, in the installs test/package/consumers.e2e.spec.ts makes.
      testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/consumers/', ...e2e],
    },
    { ...base, displayName: 'e2e', testRegex: e2e, globalSetup: '<rootDir>/test/utils/sample-build.ts' },
  ],
  testTimeout: 30000,
  // `npm test` runs one spec file at a time (the integration and e2e specs share the test databases),
  // in one worker that is replaced once it holds more than this after a file: Jest's ESM mode keeps
  // each file's module graph alive, and one process running every file ran out of heap after 174 of
  // them. `npm run test:unit` runs its specs in parallel (`--maxWorkers`).
  maxWorkers: 1,
  workerIdleMemoryLimit: '1GB',
};
