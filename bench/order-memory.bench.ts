/**
 * `npm run bench:orders -- [--urls N] [--pages P] [--links L]`:
 * the memory of the priority orders' own per-URL state, without a crawl around it: the node's URL
 * ids (`src/url/url-ids.ts`) and each policy's arrays (`src/order/`), at the size of
 * `bench:frontier` (default 1,049,308 URLs queued, 20,000 pages fetched with 11 links each).
 * Prints figures, asserts none; exact and repeatable, where `bench:frontier`'s peaks move with the
 * machine's load.
 *
 * Per order, in a process of its own under the shoal command's node flags and malloc setting (as
 * the crawler of `bench:frontier` runs), one after the other: number N URLs (fingerprints from a fixed
 * generator, as the node numbers each URL it queues) and `prioritize` each, then `observe` P pages,
 * each linking to L URLs drawn from the N (and `prioritize` the few new ones), as a crawl of P
 * pages over a frontier of N URLs does. Printed: the ArrayBuffer bytes the state holds at the end
 * (after a full collection), the largest ArrayBuffer total sampled every 5,000 calls without a
 * collection (the old copies of growing arrays counted until they are collected), the V8 heap
 * the state holds (maps and strings: the similarity's document frequencies), and the resident
 * memory: its growth at the end and its peak (VmHWM) over the process at its start. ArrayBuffer
 * bytes count whole allocations; the resident figures count only the pages written, which is what
 * a memory bound is about.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BacklinkPolicy } from '../src/order/backlink.js';
import { PageRankPolicy } from '../src/order/pagerank.js';
import type { OrderingPolicy } from '../src/order/policy.js';
import { SimilarityPolicy } from '../src/order/similarity.js';
import { UrlIds } from '../src/url/url-ids.js';
import { crawlerProcess, processSettingsLabel } from './lib/process-settings.js';

const args = parseArgs({
  options: {
    urls: { type: 'string', default: '1049308' },
    pages: { type: 'string', default: '20000' },
    links: { type: 'string', default: '11' },
    only: { type: 'string' },
  },
});
const N = Number(args.values.urls);
const P = Number(args.values.pages);
const L = Number(args.values.links);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');
const MiB = 2 ** 20;

/** xorshift32: the same draws on every run. */
function generator(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>>= 0);
  };
}

const urlOf = (i: number): string => `http://host${i % 10_000}.test/section/page-${i}.html`;

interface Figures {
  readonly retained: number;
  readonly peak: number;
  readonly heap: number;
  readonly rss: number;
  readonly hwm: number;
}

/** VmHWM of this process, bytes (Linux; 0 elsewhere). */
function peakRss(): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m === null ? 0 : Number(m[1]) * 1024;
  } catch {
    return 0;
  }
}

function measure(make: (() => OrderingPolicy) | null): Figures {
  gc?.();
  const base = process.memoryUsage();
  const hwm0 = peakRss();
  let peak = 0;
  let calls = 0;
  const sample = (): void => {
    if (++calls % 5000 === 0) peak = Math.max(peak, process.memoryUsage().arrayBuffers - base.arrayBuffers);
  };
  const ids = new UrlIds();
  const policy = make === null ? null : make();
  const next = generator(0x9e3779b9);
  for (let i = 0; i < N; i++) {
    const id = ids.idOfFingerprint(next(), next());
    policy?.prioritize({ id, url: urlOf(i), depth: 1, anchorText: i % 7 === 0 ? 'investment news' : 'more' });
    sample();
  }
  const pick = generator(12345);
  const outIds = new Array<number>(L);
  const outUrls = new Array<string>(L);
  const anchors = new Array<string>(L);
  for (let k = 0; k < P; k++) {
    for (let j = 0; j < L; j++) {
      const t = pick() % N;
      outIds[j] = t;
      outUrls[j] = urlOf(t);
      anchors[j] = j % 3 === 0 ? 'marketing investment' : `link ${j}`;
    }
    const changes = policy?.observe({
      id: k,
      url: urlOf(k),
      depth: 1,
      outIds,
      outUrls,
      anchors,
      title: `page ${k}`,
      text: `words of page ${k} about marketing and investment number ${k % 500}`,
    });
    if (changes !== undefined && changes.length < 0) throw new Error('unreachable');
    sample();
  }
  peak = Math.max(peak, process.memoryUsage().arrayBuffers - base.arrayBuffers);
  gc?.();
  const end = process.memoryUsage();
  const figures = {
    retained: end.arrayBuffers - base.arrayBuffers,
    peak,
    heap: end.heapUsed - base.heapUsed,
    rss: end.rss - base.rss,
    hwm: peakRss() - hwm0,
  };
  // Keep both alive to the measurement.
  if (ids.peek(urlOf(0)) === -2 || policy === undefined) throw new Error('unreachable');
  return figures;
}

const orders: readonly [string, (() => OrderingPolicy) | null][] = [
  ['ids only', null],
  ['backlink', () => new BacklinkPolicy()],
  ['pagerank', () => new PageRankPolicy()],
  ['similarity', () => new SimilarityPolicy({ query: 'marketing investment' })],
];
const f1 = (n: number): string => n.toFixed(1);
const only = args.values.only;
if (only !== undefined) {
  const entry = orders.find(([name]) => name === only);
  if (entry === undefined) throw new Error(`--only wants one of ${orders.map(([name]) => name).join(', ')}`);
  process.stdout.write(`${JSON.stringify(measure(entry[1]))}\n`);
} else {
  process.stdout.write(`each order in a process of its own, under ${processSettingsLabel(false)}\n`);
  process.stdout.write(
    `${N.toLocaleString('en-US')} URLs, ${P.toLocaleString('en-US')} pages fetched with ${L} links each (MiB; B/URL: resident growth per URL)\n`,
  );
  process.stdout.write(
    `${'order'.padEnd(12)}${'arrayBuffers'.padStart(13)}${'sampled max'.padStart(12)}${'heap'.padStart(7)}` +
      `${'RSS growth'.padStart(11)}${'B/URL'.padStart(7)}${'peak RSS growth'.padStart(16)}\n`,
  );
  for (const [name] of orders) {
    const { execArgv, env } = crawlerProcess(false, process.execArgv);
    const out = execFileSync(
      process.execPath,
      [...execArgv, fileURLToPath(import.meta.url), '--urls', String(N), '--pages', String(P), '--links', String(L), '--only', name],
      { env, encoding: 'utf8' },
    );
    const f = JSON.parse(out.trim().split('\n').pop() as string) as Figures;
    process.stdout.write(
      `${name.padEnd(12)}${f1(f.retained / MiB).padStart(13)}${f1(f.peak / MiB).padStart(12)}${f1(f.heap / MiB).padStart(7)}` +
        `${f1(f.rss / MiB).padStart(11)}${f1(f.rss / N).padStart(7)}${f1(f.hwm / MiB).padStart(16)}\n`,
    );
  }
}
