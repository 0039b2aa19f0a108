// Lint: typescript-eslint's recommended rules plus the import boundaries of CONVENTIONS §2.
import tseslint from 'typescript-eslint';

const NATS = { regex: '^(@nats-io/|nats$)', message: 'only src/exchange/nats/ imports the NATS client' };
const PURE_DIRS = ['src/order/**', 'src/partition/**', 'src/eval/**', 'src/frontier/**'];
const IO_MODULES = ['node:fs', 'node:fs/promises', 'node:net', 'node:http', 'node:https', 'node:dns', 'node:timers',
  'node:timers/promises', 'node:child_process', 'node:worker_threads', 'undici', 'fs', 'net', 'http', 'dns'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'scripts/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-restricted-syntax': ['error', { selector: 'TSEnumDeclaration', message: 'use an `as const` object, not enum (CONVENTIONS §4)' }],
    },
  },
  {
    // Nothing reads process.env outside config/ (and the CLI entry, which passes it to config/).
    files: ['src/**/*.ts'],
    ignores: ['src/config/**', 'src/cli/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read configuration through src/config (CONVENTIONS §2)' }],
    },
  },
  {
    // Only exchange/nats/ talks to NATS.
    files: ['src/**/*.ts'],
    ignores: ['src/exchange/nats/**'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [NATS] }],
    },
  },
  {
    // core/ is vocabulary only: it imports nothing else from src/.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [NATS, { group: ['../*', '!../core/*'], message: 'core/ imports nothing else from src/' }] }],
    },
  },
  {
    // Ordering, partitioning and evaluation are pure: no I/O, no clock, no timers.
    files: PURE_DIRS,
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [NATS], paths: IO_MODULES.map((name) => ({ name, message: 'pure module: no I/O (CONVENTIONS §2)' })),
      }],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'setImmediate', 'performance', 'fetch'],
      'no-restricted-properties': ['error',
        { object: 'Date', property: 'now', message: 'pure module: time comes in as an argument' },
        { object: 'process', property: 'env' }, { object: 'process', property: 'hrtime' }],
    },
  },

);
