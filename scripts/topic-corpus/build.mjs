#!/usr/bin/env node
/**
 * Builds shoal's topic corpus: labelled English text for the 15 Open Directory top categories that a
 * classifier of English pages needs (WORLD, non-English pages, is left to language detection). Every
 * source is a Debian or npm package that any machine can install; see SOURCES.md for each one's
 * licence and label mapping, and README.md for the steps.
 *
 *   node scripts/topic-corpus/build.mjs --out /tmp/corpus.jsonl [--npm-dir DIR] [--seed N]
 *     [--ratio 4] [--max-per-label 1200] [--min-label-docs 80] [--allow-missing]
 *
 * Writes one JSON object per line: {"label", "text", "source"}. The same installed packages and flags
 * give the same file byte for byte.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { countWords, shuffled } from './lib.mjs';
import { gcide } from './sources/gcide.mjs';
import { wordnet } from './sources/wordnet.mjs';
import { fortunes } from './sources/fortunes.mjs';
import { foldoc, jargon, elements } from './sources/dictd.mjs';
import { nethack, crawl } from './sources/games-docs.mjs';
import { gnucash } from './sources/gnucash.mjs';
import { brown, sotu } from './sources/npm-texts.mjs';
import { DEFAULT_CATEGORIES } from '../../dist/web/config.js';

// The test web's categories (built into dist/ by npm install), WORLD aside: language decides it.
export const LABELS = DEFAULT_CATEGORIES.filter((c) => c !== 'WORLD');
const SOURCES = [gcide, wordnet, fortunes, foldoc, jargon, elements, nethack, crawl, gnucash, brown, sotu];
const DEFAULT_NPM_DIR = '/tmp/topic-corpus-npm';

const { values: opts } = parseArgs({
  options: {
    out: { type: 'string' },
    'npm-dir': { type: 'string', default: DEFAULT_NPM_DIR },
    seed: { type: 'string', default: '1' },
    ratio: { type: 'string', default: '4' },
    'max-per-label': { type: 'string', default: '1200' },
    'min-label-docs': { type: 'string', default: '80' },
    'allow-missing': { type: 'boolean', default: false },
  },
});
if (!opts.out) {
  console.error('usage: node scripts/topic-corpus/build.mjs --out corpus.jsonl [--npm-dir DIR] [--seed N]');
  process.exit(2);
}
const ctx = { npmDir: opts['npm-dir'] };
const seed = Number(opts.seed);

function installCommands(sources) {
  const apt = sources.flatMap((s) => s.install.apt ?? []);
  const npm = sources.flatMap((s) => s.install.npm ?? []);
  const lines = [];
  if (apt.length > 0) lines.push(`apt-get install -y --no-install-recommends ${apt.join(' ')}`);
  if (npm.length > 0) {
    lines.push(
      `mkdir -p ${ctx.npmDir} && cd ${ctx.npmDir} && npm pack ${npm.join(' ')} && ` +
        `for f in *.tgz; do mkdir -p "\${f%.tgz}" && tar xzf "$f" -C "\${f%.tgz}"; done`,
    );
  }
  return lines;
}

const missing = SOURCES.filter((s) => !s.isAvailable(ctx));
if (missing.length > 0) {
  console.error(`missing sources: ${missing.map((s) => s.id).join(', ')}; install them with:`);
  for (const line of installCommands(missing)) console.error(`  ${line}`);
  if (!opts['allow-missing']) process.exit(1);
  console.error('(--allow-missing: building from the sources that are installed)');
}

/** @type {Map<string, Map<string, {label: string, text: string, source: string}[]>>} label -> source -> docs */
const pool = new Map(LABELS.map((l) => [l, new Map()]));
for (const src of SOURCES.filter((s) => !missing.includes(s))) {
  for (const d of await src.documents(ctx)) {
    if (!pool.has(d.label)) throw new Error(`${src.id}: unknown label ${d.label}`);
    const bySource = pool.get(d.label);
    if (!bySource.has(src.id)) bySource.set(src.id, []);
    bySource.get(src.id).push({ label: d.label, text: d.text, source: src.id });
  }
}

const available = new Map([...pool].map(([l, m]) => [l, [...m.values()].reduce((n, docs) => n + docs.length, 0)]));
const minDocs = Number(opts['min-label-docs']);
const kept = LABELS.filter((l) => available.get(l) >= minDocs);
const thin = LABELS.filter((l) => available.get(l) < minDocs);
const smallest = Math.min(...kept.map((l) => available.get(l)));
const cap = Math.min(Number(opts['max-per-label']), Math.floor(Number(opts.ratio) * smallest));

/**
 * Takes at most `cap` documents of one label, round robin over its sources in a seeded order, so a
 * large source (SOTU, FOLDOC) cannot crowd out the smaller ones that carry other vocabulary.
 */
function takeBalanced(label, bySource) {
  const queues = [...bySource.keys()].sort().map((id) => shuffled(bySource.get(id), seed, `${label}/${id}`));
  const out = [];
  for (let i = 0; out.length < cap && queues.some((q) => i < q.length); i++) {
    for (const q of queues) if (i < q.length && out.length < cap) out.push(q[i]);
  }
  return out;
}

const chosen = kept.flatMap((l) => takeBalanced(l, pool.get(l)));
const lines = shuffled(chosen, seed, 'corpus').map((d) => JSON.stringify(d));
writeFileSync(opts.out, lines.join('\n') + '\n');

const rows = LABELS.map((label) => {
  const docs = chosen.filter((d) => d.label === label);
  const bySource = new Map();
  for (const d of docs) bySource.set(d.source, (bySource.get(d.source) ?? 0) + 1);
  return {
    label,
    docs: docs.length,
    words: docs.reduce((n, d) => n + countWords(d.text), 0),
    available: available.get(label),
    sources:
      [...bySource]
        .sort((a, b) => b[1] - a[1])
        .map(([s, n]) => `${s} ${n}`)
        .join(', ') || '-',
  };
});
console.log(`wrote ${chosen.length} documents to ${opts.out} (cap ${cap} per label, seed ${seed})`);
console.log(['label', 'docs', 'words', 'available', 'sources'].join('\t'));
for (const r of rows) console.log([r.label, r.docs, r.words, r.available, r.sources].join('\t'));
if (thin.length > 0) console.log(`left out, fewer than ${minDocs} documents available: ${thin.join(', ')}`);
