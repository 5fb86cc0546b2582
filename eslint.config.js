import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Lint configuration: typescript-eslint's recommended rules on the library, sample, tests and benchmarks. */
export default tseslint.config(
  { ignores: ['dist/', '.sample-dist/', 'coverage/', 'node_modules/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-function-type': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['test/global-setup.js', 'scripts/build-package.js'],
    languageOptions: { globals: { process: 'readonly' } },
  },
);
