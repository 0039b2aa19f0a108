/**
 * `npm run bench:parse` (node --expose-gc --import tsx bench/parse.bench.ts [--quick] [--pages N]
 * [--rounds R]): the CPU a crawler spends per HTML page after the fetch, stage by stage, on pages
 * of the test web rendered in process (no sockets: `encodePage` gives the bytes and Content-Type
 * the server would send). Prints figures, asserts none.
 *
 * Stages, each timed alone over the same pages, in the order and with the options a node uses
 * (`page()` in src/node/stages/page-processor.ts, the parse in `analyzePage()` of src/parse/page-analysis.ts):
 * - decode: detectCharset + decodeHtml of the body;
 * - parse: parseHtml of the decoded page (the crawl's default parse options);
 * - simhash: simhash of the visible text as the processor writes it (16 hex digits);
 * - textDigest: of the visible text;
 * - payloadDigest: of the body (once: bodies here have no content encoding);
 * - page: all of the above, per page, as the node calls them (language detection and link
 *   normalization left out: other stages, other benchmarks).
 *
 * Each round runs every stage once over all pages, the stage order rotating from round to round;
 * figures are medians over rounds (a warm-up round is not counted). Per stage and round:
 * - wall µs/page (performance.now) and CPU µs/page (process.cpuUsage, user + system: time taken
 *   from this process by others on a shared machine does not count);
 * - heap bytes allocated per page: a minor GC before the stage empties the young generation, then
 *   used-heap growth over the stage plus what each GC during the stage freed (v8.GCProfiler reports
 *   used heap before and after every GC). Off-heap memory (Buffer contents) is not counted. (A full
 *   GC before each stage would be cleaner, but it throws away optimized code whose maps died, so
 *   every stage ran half-warm: parse measured 2.5 times slower that way.);
 * - GC µs/page: the summed cost of those GCs (also inside wall time).
 *
 * An `outputs` checksum (SHA-256 over every stage's output for every page) is printed, so two
 * versions of the code can be shown to produce the same results on the same pages. The last line
 * is `BENCH_PARSE_JSON {...}` for scripts.
 */
import { createHash } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { payloadDigest, textDigest } from '../src/dedup/content-digest.js';
import { simhash } from '../src/dedup/simhash.js';
import { decodeHtml, detectCharset } from '../src/parse/charset.js';
import { parseHtml, type ParseHtmlOptions } from '../src/parse/html-page.js';
import type { WebConfigInput } from '../src/web/config.js';
import { PageKind, WebModel } from '../src/web/model.js';
import { encodePage } from '../src/web/respond.js';

/** The test web of `bench:crawl`: 1,000 hosts, every default (languages, legacy charsets, faults). */
const WEB: WebConfigInput = {
  seed: 1,
  hosts: 1000,
  pages: 200_000,
  seeds: 100,
  server: { addressCount: 64, renderCacheBytes: 0 },
  latency: { slowHostRate: 0 },
};
const PORT = 8080;
/** The crawl configuration's defaults (src/config/crawl-config.ts, `parse`). */
const PARSE_OPTIONS: ParseHtmlOptions = { anchorContextTokens: 10, maxLinks: 10_000, maxTextChars: 1_000_000 };

const STAGES = ['decode', 'parse', 'simhash', 'textDigest', 'payloadDigest', 'page'] as const;
type Stage = (typeof STAGES)[number];

/** A page as the fetcher hands it over, and what the stages before each one produced. */
interface Page {
  readonly url: string;
  readonly body: Buffer;
  readonly contentType: string;
  readonly html: string;
  readonly visibleText: string;
}

/** One stage over one round. */
interface Sample {
  readonly wallUs: number;
  readonly cpuUs: number;
  readonly heapBytes: number;
  readonly gcUs: number;
  readonly gcCount: number;
}

/** The fields of GCProfiler's heap statistics used here (camelCase, whatever @types/node says). */
interface GcHeap {
  readonly usedHeapSize: number;
}

const args = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    pages: { type: 'string' },
    rounds: { type: 'string' },
  },
  allowPositionals: false,
});
const isQuick = args.values.quick;
const PAGES = Number(args.values.pages ?? (isQuick ? 1000 : 3000));
const ROUNDS = Number(args.values.rounds ?? (isQuick ? 5 : 11));

/** V8's `gc()`: `--expose-gc` when given, else switched on here (allocation figures need an empty young generation). */
type Gc = (options?: { type: 'major' | 'minor' }) => void;
function getGc(): Gc {
  const exposed = (globalThis as { gc?: Gc }).gc;
  if (exposed !== undefined) return exposed;
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Gc;
}
const gc = getGc();

/**
 * Served pages (ok and near-duplicates), spread evenly over the page ids of the test web. The model
 * is dropped on return, so that the GCs measured scan a heap of pages only.
 */
function renderPages(count: number): Page[] {
  const model = new WebModel(WEB);
  const served: number[] = [];
  for (let g = 0; g < model.pageCount; g++) {
    const kind = model.pageKind[model.contentId(g)];
    if (kind === PageKind.ok || kind === PageKind.nearDuplicate) served.push(g);
  }
  const step = Math.max(1, Math.floor(served.length / count));
  const pages: Page[] = [];
  for (let i = 0; i < served.length && pages.length < count; i += step) {
    const g = served[i] as number;
    const { body, contentType } = encodePage(model, g, PORT);
    const url = model.url(g, PORT);
    const html = decodeHtml(body, detectCharset(body, contentType).charset);
    pages.push({ url, body, contentType, html, visibleText: parseHtml(html, url, PARSE_OPTIONS).visibleText });
  }
  return pages;
}

const hex16 = (text: string): string => simhash(text).toString(16).padStart(16, '0');

/** Runs `stage` over every page; returns a number that depends on every output (kept from dead-code elimination). */
function run(stage: Stage, pages: readonly Page[]): number {
  let sink = 0;
  switch (stage) {
    case 'decode':
      for (const p of pages) sink += decodeHtml(p.body, detectCharset(p.body, p.contentType).charset).length;
      break;
    case 'parse':
      for (const p of pages) sink += parseHtml(p.html, p.url, PARSE_OPTIONS).links.length;
      break;
    case 'simhash':
      for (const p of pages) sink += hex16(p.visibleText).charCodeAt(0);
      break;
    case 'textDigest':
      for (const p of pages) sink += textDigest(p.visibleText).charCodeAt(7);
      break;
    case 'payloadDigest':
      for (const p of pages) sink += payloadDigest(p.body).charCodeAt(5);
      break;
    case 'page':
      for (const p of pages) {
        const digest = payloadDigest(p.body);
        const charset = detectCharset(p.body, p.contentType);
        const page = parseHtml(decodeHtml(p.body, charset.charset), p.url, PARSE_OPTIONS);
        sink +=
          digest.charCodeAt(5) + page.links.length + hex16(page.visibleText).charCodeAt(0) + textDigest(page.visibleText).charCodeAt(7);
      }
      break;
  }
  return sink;
}

/** SHA-256 over every stage's output for every page. */
function outputsChecksum(pages: readonly Page[]): string {
  const h = createHash('sha256');
  for (const p of pages) {
    const charset = detectCharset(p.body, p.contentType);
    const page = parseHtml(decodeHtml(p.body, charset.charset), p.url, PARSE_OPTIONS);
    h.update(payloadDigest(p.body))
      .update(JSON.stringify(charset))
      .update(JSON.stringify(page))
      .update(hex16(page.visibleText))
      .update(textDigest(page.visibleText));
  }
  return h.digest('hex');
}

let blackHole = 0;

function measure(stage: Stage, pages: readonly Page[]): Sample {
  gc({ type: 'minor' });
  const profiler = new v8.GCProfiler();
  profiler.start();
  const heap0 = v8.getHeapStatistics().used_heap_size;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  blackHole += run(stage, pages);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const heap1 = v8.getHeapStatistics().used_heap_size;
  const gcs = profiler.stop().statistics;
  let freed = 0;
  let gcUs = 0;
  for (const s of gcs) {
    freed += (s.beforeGC.heapStatistics as unknown as GcHeap).usedHeapSize - (s.afterGC.heapStatistics as unknown as GcHeap).usedHeapSize;
    gcUs += s.cost;
  }
  const n = pages.length;
  return {
    wallUs: (wallMs * 1000) / n,
    cpuUs: (cpu.user + cpu.system) / n,
    heapBytes: (heap1 - heap0 + freed) / n,
    gcUs: gcUs / n,
    gcCount: gcs.length,
  };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const f1 = (n: number): string => n.toFixed(1);
const pad = (s: string, w: number): string => s.padStart(w);

function main(): void {
  const load0 = loadavg()[0] ?? 0;
  const t0 = performance.now();
  const pages = renderPages(PAGES);
  const htmlBytes = pages.reduce((a, p) => a + p.body.length, 0) / pages.length;
  const textChars = pages.reduce((a, p) => a + p.visibleText.length, 0) / pages.length;
  console.log(
    `parse bench: ${pages.length} test-web pages (mean ${Math.round(htmlBytes)} B of HTML, ${Math.round(textChars)} chars of visible text), ` +
      `rendered in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${ROUNDS} rounds after a warm-up; node ${process.version}`,
  );
  const checksum = outputsChecksum(pages);
  gc({ type: 'major' }); // the model and the checksum's garbage, before the warm-up
  console.log(`outputs sha256:${checksum.slice(0, 16)}`);

  for (const stage of STAGES) measure(stage, pages);
  const samples = new Map<Stage, Sample[]>(STAGES.map((s) => [s, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < STAGES.length; i++) {
      const stage = STAGES[(i + r) % STAGES.length] as Stage;
      samples.get(stage)?.push(measure(stage, pages));
    }
  }

  const rows = STAGES.map((stage) => {
    const s = samples.get(stage) ?? [];
    return {
      stage,
      usPerPage: median(s.map((x) => x.wallUs)),
      minUsPerPage: Math.min(...s.map((x) => x.wallUs)),
      cpuUsPerPage: median(s.map((x) => x.cpuUs)),
      allocBytesPerPage: median(s.map((x) => x.heapBytes)),
      gcUsPerPage: median(s.map((x) => x.gcUs)),
      gcsPerRound: median(s.map((x) => x.gcCount)),
    };
  });
  const sumOfStages = rows.filter((r) => r.stage !== 'page').reduce((a, r) => a + r.usPerPage, 0);
  console.log(
    `\n${'stage'.padEnd(14)}${pad('wall µs/page', 14)}${pad('(min)', 9)}${pad('cpu µs/page', 13)}${pad('heap B/page', 13)}${pad('gc µs/page', 12)}${pad('GCs/round', 11)}`,
  );
  for (const r of rows) {
    console.log(
      `${r.stage.padEnd(14)}${pad(f1(r.usPerPage), 14)}${pad(f1(r.minUsPerPage), 9)}${pad(f1(r.cpuUsPerPage), 13)}` +
        `${pad(String(Math.round(r.allocBytesPerPage)), 13)}${pad(f1(r.gcUsPerPage), 12)}${pad(String(r.gcsPerRound), 11)}`,
    );
  }
  console.log(
    `(sum of the separate stages: ${f1(sumOfStages)} µs/page; ${Math.round(1e6 / (rows.at(-1)?.usPerPage ?? 1))} pages/s per core for 'page')`,
  );
  const load1 = loadavg()[0] ?? 0;
  console.log(
    `machine: ${cpus().length} CPUs, 1-min load average ${load0.toFixed(2)} at start, ${load1.toFixed(2)} at end (shared cores: compare versions in alternating runs)`,
  );
  const json = {
    pages: pages.length,
    meanHtmlBytes: Math.round(htmlBytes),
    meanTextChars: Math.round(textChars),
    rounds: ROUNDS,
    node: process.version,
    outputsSha256: checksum,
    stages: Object.fromEntries(rows.map(({ stage, ...r }) => [stage, r])),
    sumOfStagesUsPerPage: sumOfStages,
    machine: { cpus: cpus().length, loadAvg1mStart: load0, loadAvg1mEnd: load1 },
    sink: blackHole % 1000,
  };
  console.log(`BENCH_PARSE_JSON ${JSON.stringify(json)}`);
}

main();
