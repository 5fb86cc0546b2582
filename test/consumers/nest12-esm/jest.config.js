/** Jest in ES module mode (run through `node --experimental-vm-modules`), on the same specs as Vitest. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true }] },
  testRegex: '(src|test)/.*\\.(e2e-)?spec\\.ts$',
  testTimeout: 60000,
};
