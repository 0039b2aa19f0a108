// Lint: typescript-eslint's recommended rules plus the import boundaries of CONVENTIONS §2: no import
// cycle, and arrows only down the layers below.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const NATS = { regex: '^(@nats-io/|nats$)', message: 'only src/exchange/nats/ imports the NATS client' };
const PURE_DIRS = ['src/order/**', 'src/partition/**', 'src/eval/**', 'src/frontier/**', 'src/geo/**'];
const IO_MODULES = [
  'node:fs',
  'node:fs/promises',
  'node:net',
  'node:http',
  'node:https',
  'node:dns',
  'node:timers',
  'node:timers/promises',
  'node:child_process',
  'node:worker_threads',
  'undici',
  'fs',
  'net',
  'http',
  'dns',
];

/**
 * The layers of src/, lowest first: a folder may import only folders of a lower layer (and itself).
 * core is vocabulary; then the components of the crawler core, in the order they build on each other;
 * then configuration and observation; the test web and the node; the ways of running nodes and the
 * simulator; the crawl (one node or many); the command line. src/index.ts, the library's face,
 * sits above all.
 */
export const LAYERS = [
  ['core'],
  ['url', 'dns', 'dedup', 'eval', 'order', 'robots', 'classify'],
  ['geo'],
  ['partition', 'parse', 'fetch', 'frontier', 'report'],
  ['sitemap', 'store'],
  ['seen', 'frontier-store', 'exchange'],
  ['config', 'obs'],
  ['web', 'node'],
  ['cluster', 'sim'],
  ['crawl', 'training'],
  ['cli'],
];

/** The no-restricted-paths zones of {@link LAYERS}: each folder against every folder of its layer and above. */
function layerZones() {
  return LAYERS.flatMap((layer, rank) =>
    layer.map((folder) => ({
      target: `./src/${folder}`,
      from: LAYERS.slice(rank)
        .flat()
        .filter((other) => other !== folder)
        .map((other) => `./src/${other}`),
      message: `layers: src/${folder} (layer ${rank}) may import only lower layers (eslint.config.js LAYERS)`,
    })),
  ).filter((zone) => zone.from.length > 0);
}

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
    // Prettier wraps code at 140 columns but never breaks a string or a comment: those are held here.
    files: ['**/*.ts'],
    ignores: ['src/web/data/**', 'src/geo/data/**'],
    rules: {
      'max-len': ['error', { code: 180, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // Arrows only down the layers (type imports included). Import cycles, type-only ones included, are
    // found by madge, the second half of `npm run lint` (import-x's no-cycle skips type imports).
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones() }],
    },
  },
  {
    // Nothing reads process.env outside config/ (and the CLI entry, which passes it to config/).
    files: ['src/**/*.ts'],
    ignores: ['src/config/**', 'src/cli/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'read configuration through src/config (CONVENTIONS §2)' },
      ],
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
      'no-restricted-imports': [
        'error',
        { patterns: [NATS, { group: ['../*', '!../core/*'], message: 'core/ imports nothing else from src/' }] },
      ],
    },
  },
  {
    // Ordering, partitioning and evaluation are pure: no I/O, no clock, no timers.
    files: PURE_DIRS,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [NATS],
          paths: IO_MODULES.map((name) => ({ name, message: 'pure module: no I/O (CONVENTIONS §2)' })),
        },
      ],
      'no-restricted-globals': ['error', 'setTimeout', 'setInterval', 'setImmediate', 'performance', 'fetch'],
      'no-restricted-properties': [
        'error',
        { object: 'Date', property: 'now', message: 'pure module: time comes in as an argument' },
        { object: 'process', property: 'env' },
        { object: 'process', property: 'hrtime' },
      ],
    },
  },
);
