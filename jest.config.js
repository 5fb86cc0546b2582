/** Jest in ESM mode: run through `node --experimental-vm-modules` (see package.json). */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { warnOnly: false } }],
  },
  testMatch: ['<rootDir>/lib/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  // The consumer apps run their own test runners, in the installs test/package/consumers.e2e.spec.ts makes.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/consumers/'],
  testTimeout: 30000,
  // One spec file at a time (they share the test databases), in one worker that is replaced once it
  // holds more than this after a file: Jest's ESM mode keeps each file's module graph alive, and
  // one process running every file ran out of heap after 174 of them.
  maxWorkers: 1,
  workerIdleMemoryLimit: '1GB',
  globalSetup: '<rootDir>/test/global-setup.js',
};
