/**
 * `npm run bench:neardup`: what the near-duplicate index costs a crawl (SPEC §2.10,
 * `src/dedup/simhash-index.ts`). Prints figures, asserts none.
 *
 * For each index shape (k = `maxDistance`, m = blocks; the default is k = 8, m = 9), an index is
 * filled with N random fingerprints (a crawl's unrelated pages: distances Binomial(64, ½)), then
 * queried with a crawl's mix: 90% new pages (random fingerprints, no match) and 10% near copies of a
 * stored one (k/2 bits flipped), each lookup followed by an insert when it found nothing, as the
 * page processor does. Printed per shape: lookups per second, µs per page (lookup + insert),
 * fingerprints compared per lookup, and the index's bytes per page (its arrays, without the URLs,
 * which cost their length in the crawl) with the resulting MB for 1M pages. Then a brute-force
 * scan of the same index at the default k, for scale.
 *
 * Last, what sharing a kept page's fingerprint with another node costs on the exchange
 * (`dedup.near.isShared`, `src/node/collaboration/simhash-sharing.ts`): encoded bytes per
 * fingerprint of SimHash batches of 1 to 500 pages of the `demo` test web (URLs in a seeded random
 * order, as pages of many hosts finish), next to a URL batch of the same URLs. Exact, not timed.
 *
 * Fingerprints are seeded: the same on every run. Rates are medians over repetitions, each of up to
 * 50,000 lookups or 3 s (1 s with `--quick`).
 *
 * Flags: `--quick` (N = 200,000, 2 repetitions: under ~20 s), `--pages N`.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { SimHashIndex } from '../src/dedup/simhash-index.js';
import { DEFAULT_NEAR_DUPLICATE_DISTANCE } from '../src/dedup/near-duplicate-action.js';
import { hash32 } from '../src/core/prng.js';
import { median } from './lib/report.js';
import { encodeMessage } from '../src/exchange/codec.js';
import { WebModel } from '../src/web/model.js';
import { WEB_PRESETS } from '../src/web/presets.js';

const { values: flags } = parseArgs({ options: { quick: { type: 'boolean' }, pages: { type: 'string' } } });
const N = Number(flags.pages ?? (flags.quick === true ? 200_000 : 1_000_000));
const REPS = flags.quick === true ? 2 : 3;
/** Lookups per repetition at most; a repetition also stops after {@link REP_MS}. */
const QUERIES = 50_000;
const REP_MS = flags.quick === true ? 1000 : 3000;

const SHAPES: readonly { readonly k: number; readonly m?: number }[] = [
  { k: 3 },
  { k: 6 },
  { k: 6, m: 8 },
  { k: DEFAULT_NEAR_DUPLICATE_DISTANCE },
  { k: DEFAULT_NEAR_DUPLICATE_DISTANCE, m: 10 },
];

/** Seeded random fingerprint words: i-th of stream `s`. */
const word = (s: number, i: number, lane: number): number => hash32(s, i, lane) >>> 0;

function flip(hi: number, lo: number, bits: number, seed: number): [number, number] {
  const chosen = new Set<number>();
  for (let j = 0; chosen.size < bits; j++) chosen.add(hash32(seed, j, 99) % 64);
  for (const b of chosen) {
    if (b < 32) lo ^= 1 << b;
    else hi ^= 1 << (b - 32);
  }
  return [hi >>> 0, lo >>> 0];
}

function filled(k: number, m: number | undefined): SimHashIndex<number> {
  const index = new SimHashIndex<number>({ maxDistance: k, capacity: N + 2 * QUERIES, ...(m === undefined ? {} : { blocks: m }) });
  const all: [number, number, number][] = [];
  for (let i = 0; i < N; i++) all.push([word(1, i, 0), word(1, i, 1), i]);
  index.addAll(all);
  return index;
}

function run(index: SimHashIndex<number>, k: number, rep: number): { rate: number; candidates: number; matches: number } {
  let matches = 0;
  const probesBefore = index.probes;
  const t0 = performance.now();
  let q = 0;
  for (; q < QUERIES && (q % 256 !== 0 || performance.now() - t0 < REP_MS); q++) {
    let hi: number;
    let lo: number;
    if (q % 10 === 0) {
      const target = hash32(rep, q, 7) % N;
      [hi, lo] = flip(word(1, target, 0), word(1, target, 1), k >> 1, hash32(rep, q, 8));
    } else {
      hi = word(2 + rep, q, 0);
      lo = word(2 + rep, q, 1);
    }
    const m = index.nearest(hi, lo);
    if (m === null) index.add(hi, lo, N + q);
    else matches++;
  }
  const seconds = (performance.now() - t0) / 1000;
  return { rate: q / seconds, candidates: (index.probes - probesBefore) / q, matches };
}

console.log(
  `bench:neardup: ${N.toLocaleString('en')} fingerprints; ${REPS} repetitions of up to ${QUERIES.toLocaleString('en')} lookups or ${REP_MS} ms; ${cpus()[0]?.model ?? '?'}`,
);
console.log(
  '| k | blocks | tables | lookups/s | µs per page | fingerprints compared per lookup | index bytes per page | MiB per 1M pages |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const { k, m } of SHAPES) {
  const index = filled(k, m);
  const rates: number[] = [];
  let last = { rate: 0, candidates: 0, matches: 0 };
  for (let r = 0; r < REPS; r++) {
    last = run(index, k, r);
    rates.push(last.rate);
  }
  const rate = median(rates);
  const perPage = index.arrayBytes / index.size;
  const cells = [k, index.blocks, index.tables, Math.round(rate).toLocaleString('en'), (1e6 / rate).toFixed(2), last.candidates.toFixed(0)];
  console.log(`| ${cells.join(' | ')} | ${perPage.toFixed(0)} | ${((perPage * 1e6) / 2 ** 20).toFixed(0)} |`);
}

// A brute-force scan over the same fingerprints, for scale.
const words = new Uint32Array(2 * N);
for (let i = 0; i < N; i++) {
  words[2 * i] = word(1, i, 0);
  words[2 * i + 1] = word(1, i, 1);
}
const popcount = (x: number): number => {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
};
const scans = flags.quick === true ? 20 : 100;
const t0 = performance.now();
let near = 0;
for (let q = 0; q < scans; q++) {
  const hi = word(9, q, 0);
  const lo = word(9, q, 1);
  for (let i = 0; i < N; i++) {
    if (
      popcount((hi ^ (words[2 * i] as number)) >>> 0) + popcount((lo ^ (words[2 * i + 1] as number)) >>> 0) <=
      DEFAULT_NEAR_DUPLICATE_DISTANCE
    )
      near++;
  }
}
const scanRate = scans / ((performance.now() - t0) / 1000);
console.log(
  `brute-force scan of ${N.toLocaleString('en')} fingerprints (k = ${DEFAULT_NEAR_DUPLICATE_DISTANCE}): ` +
    `${Math.round(scanRate).toLocaleString('en')} lookups/s, ${(1e6 / scanRate).toFixed(0)} µs per page (${near} found)`,
);

// The exchange's cost of a shared fingerprint, by batch size (exact bytes).
const web = new WebModel(WEB_PRESETS.demo);
const order = Array.from({ length: web.pageCount }, (_, g) => g).sort((a, b) => hash32(5, a, 0) - hash32(5, b, 0));
console.log('\n| pages per batch | bytes per fingerprint (SimHash batch) | bytes per URL (URL batch of the same URLs) |');
console.log('|---:|---:|---:|');
for (const size of [1, 4, 16, 64, 500]) {
  let simhashBytes = 0;
  let urlBytes = 0;
  let urlChars = 0;
  const batches = Math.floor(Math.min(order.length, 20_000) / size);
  for (let b = 0; b < batches; b++) {
    const urls = order.slice(b * size, (b + 1) * size).map((g) => web.url(g, 8080));
    urlChars += urls.reduce((sum, u) => sum + u.length, 0);
    const simhashes = new Uint8Array(8 * size);
    const view = new DataView(simhashes.buffer);
    for (let i = 0; i < 2 * size; i++) view.setUint32(4 * i, word(11, b * size + (i >> 1), i & 1) | 1);
    simhashBytes += encodeMessage({ kind: 'simhashes', from: 'node-1', seq: b + 1, urls, simhashes }).length;
    const exchanged = urls.map((url) => ({ url, depth: 3, fromUrl: null }));
    urlBytes += encodeMessage({ kind: 'urls', from: 'node-1', seq: b + 1, urls: exchanged }).length;
  }
  const n = batches * size;
  console.log(`| ${size} | ${(simhashBytes / n).toFixed(1)} | ${(urlBytes / n).toFixed(1)} |`);
  if (size === 500) console.log(`(URLs of ${(urlChars / n).toFixed(1)} characters on average)`);
}
