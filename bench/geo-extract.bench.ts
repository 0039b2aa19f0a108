/**
 * `npm run bench:geo` (node --expose-gc --import tsx bench/geo-extract.bench.ts [--quick] [--pages N]
 * [--rounds R]): how well and how fast the street-address extractor (src/geo/address-extractor.ts)
 * finds the geographic entities of SPEC §4.3 in a page's visible text. Prints figures, asserts none.
 *
 * 1. Quality on the `demo` test web: its truth is exported (`exportTruth`, entities.tsv read back by
 *    `readTruth`), N served pages spread evenly over its page ids are rendered in process
 *    (`encodePage`) and parsed once (`parseHtml`) for their visible text; precision and recall of
 *    `extractAddresses` against the truth rows of those pages, matched by `addressKey`, and the
 *    share of hits whose target is the true city's.
 * 2. Quality on the real documents of test/fixtures/geo/real against their hand labels, all files
 *    and the held-out ones apart (see that folder's README).
 * 3. Speed: `extractAddresses` over every test-web page's text, and over the real fixtures' text
 *    (dense in numbers, so many starts to reject), with `parseHtml` of the same pages as a yardstick
 *    for what a page already costs. MB/s counts the UTF-8 bytes of the text scanned.
 *
 * Each round runs every stage once, the stage order rotating from round to round; figures are
 * medians over rounds (a warm-up round is not counted), per core from CPU time (process.cpuUsage),
 * so time the machine gives to others does not count. An `outputs` checksum (SHA-256 over every
 * address found) shows that two versions of the code answer alike. The last line is
 * `BENCH_GEO_JSON {...}` for scripts.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { addressKey, extractAddresses, type AddressParts, type GeoAddress } from '../src/geo/address-extractor.js';
import { Gazetteer } from '../src/geo/gazetteer.js';
import { decodeHtml, detectCharset } from '../src/parse/charset.js';
import { parseHtml, type ParseHtmlOptions } from '../src/parse/html-page.js';
import { PageKind, WebModel } from '../src/web/model.js';
import { WEB_PRESETS } from '../src/web/presets.js';
import { encodePage } from '../src/web/respond.js';
import { exportTruth } from '../src/web/truth/export.js';
import { readTruth } from '../src/web/truth/read.js';

const PORT = 8080;
/** The crawl configuration's defaults (src/config/crawl-config.ts, `parse`). */
const PARSE_OPTIONS: ParseHtmlOptions = { anchorContextTokens: 10, maxLinks: 10_000, maxTextChars: 1_000_000 };
const FIXTURES = fileURLToPath(new URL('../test/fixtures/geo/real/', import.meta.url));
/** Extraction is fast: per round the test web's pages are scanned this many times, the small real fixtures more. */
const WEB_REPEAT = 10;
const FIXTURE_REPEAT = 1000;

const STAGES = ['extract:web', 'extract:real', 'parse:web'] as const;
type Stage = (typeof STAGES)[number];

const args = parseArgs({
  options: { quick: { type: 'boolean', default: false }, pages: { type: 'string' }, rounds: { type: 'string' } },
  allowPositionals: false,
});
const isQuick = args.values.quick;
const PAGES = Number(args.values.pages ?? (isQuick ? 1000 : 3000));
const ROUNDS = Number(args.values.rounds ?? (isQuick ? 3 : 7));

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}
const f1 = (n: number): string => n.toFixed(1);
const f3 = (n: number): string => n.toFixed(3);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

interface Score {
  tp: number;
  fp: number;
  fn: number;
}
const precision = (s: Score): number => (s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp));
const recall = (s: Score): number => (s.tp + s.fn === 0 ? 1 : s.tp / (s.tp + s.fn));

/** Adds the matches of `found` against `expected` (multisets of keys) to `into`; returns the matched found ones. */
function score(found: readonly GeoAddress[], expected: readonly AddressParts[], into: Score): GeoAddress[] {
  const left = new Map<string, number>();
  for (const e of expected) left.set(addressKey(e), (left.get(addressKey(e)) ?? 0) + 1);
  const hits: GeoAddress[] = [];
  for (const a of found) {
    const k = addressKey(a);
    const n = left.get(k) ?? 0;
    if (n > 0) {
      left.set(k, n - 1);
      hits.push(a);
    } else into.fp++;
  }
  into.tp += hits.length;
  into.fn += expected.length - hits.length;
  return hits;
}

interface WebPage {
  readonly html: string;
  readonly url: string;
  readonly text: string;
  readonly truth: readonly (AddressParts & { readonly target: number })[];
}

/** Served pages (ok and near-duplicates) of the demo web, spread evenly, with their truth rows. */
async function webPages(count: number, gazetteer: Gazetteer): Promise<{ pages: WebPage[]; truthRows: number; exportMs: number }> {
  const model = new WebModel(WEB_PRESETS.demo);
  const tmp = await mkdtemp(join(tmpdir(), 'shoal-bench-geo-'));
  try {
    const t0 = performance.now();
    await exportTruth(model, join(tmp, 'truth'), { port: PORT });
    const entities = await (await readTruth(join(tmp, 'truth'))).entities();
    const exportMs = performance.now() - t0;
    const byPage = new Map<number, (AddressParts & { target: number })[]>();
    for (const e of entities) {
      const list = byPage.get(e.page) ?? [];
      list.push({ ...e, target: gazetteer.indexOf(`${e.city}, ${e.state}`) });
      byPage.set(e.page, list);
    }
    const served: number[] = [];
    for (let g = 0; g < model.pageCount; g++) {
      const kind = model.pageKind[model.contentId(g)];
      if (kind === PageKind.ok || kind === PageKind.nearDuplicate) served.push(g);
    }
    const step = Math.max(1, Math.floor(served.length / count));
    const pages: WebPage[] = [];
    for (let i = 0; i < served.length && pages.length < count; i += step) {
      const g = served[i] as number;
      const { body, contentType } = encodePage(model, g, PORT);
      const html = decodeHtml(body, detectCharset(body, contentType).charset);
      const url = model.url(g, PORT);
      pages.push({ html, url, text: parseHtml(html, url, PARSE_OPTIONS).visibleText, truth: byPage.get(g) ?? [] });
    }
    return { pages, truthRows: entities.length, exportMs };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

interface Fixture {
  readonly file: string;
  readonly text: string;
  readonly isHeldOut: boolean;
  readonly labels: readonly (AddressParts & { readonly target: string | null })[];
}

async function fixtures(): Promise<Fixture[]> {
  const labels = JSON.parse(await readFile(join(FIXTURES, 'labels.json'), 'utf8')) as Record<
    string,
    { heldOut: boolean; addresses: (AddressParts & { target: string | null })[] }
  >;
  const out: Fixture[] = [];
  for (const file of (await readdir(FIXTURES)).sort()) {
    const l = labels[file];
    if (l === undefined) continue;
    const raw = await readFile(join(FIXTURES, file), 'utf8');
    const text = file.endsWith('.html') ? parseHtml(raw, 'http://fixture.test/', PARSE_OPTIONS).visibleText : raw;
    out.push({ file, text, isHeldOut: l.heldOut, labels: l.addresses });
  }
  return out;
}

let blackHole = 0;

function run(stage: Stage, pages: readonly WebPage[], real: readonly Fixture[], gazetteer: Gazetteer): void {
  switch (stage) {
    case 'extract:web':
      for (let r = 0; r < WEB_REPEAT; r++) for (const p of pages) blackHole += extractAddresses(p.text, gazetteer).length;
      break;
    case 'extract:real':
      for (let r = 0; r < FIXTURE_REPEAT; r++) for (const f of real) blackHole += extractAddresses(f.text, gazetteer).length;
      break;
    case 'parse:web':
      for (const p of pages) blackHole += parseHtml(p.html, p.url, PARSE_OPTIONS).visibleText.length;
      break;
  }
}

function measure(
  stage: Stage,
  pages: readonly WebPage[],
  real: readonly Fixture[],
  gazetteer: Gazetteer,
): { wallMs: number; cpuMs: number } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  run(stage, pages, real, gazetteer);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000 };
}

async function main(): Promise<void> {
  const load0 = loadavg()[0] ?? 0;
  const gazetteer = Gazetteer.usTop(100);

  // 1. The test web.
  const t0 = performance.now();
  const { pages, truthRows, exportMs } = await webPages(PAGES, gazetteer);
  const webScore: Score = { tp: 0, fp: 0, fn: 0 };
  let rightTarget = 0;
  const h = createHash('sha256');
  for (const p of pages) {
    const found = extractAddresses(p.text, gazetteer);
    for (const a of found) h.update(`${a.number}|${a.street}|${a.city}|${a.state}|${a.zip}|${a.target}|${a.start}|${a.end};`);
    for (const a of score(found, p.truth, webScore)) {
      if (p.truth.some((t) => addressKey(t) === addressKey(a) && t.target === a.target)) rightTarget++;
    }
  }
  const geoPages = pages.filter((p) => p.truth.length > 0).length;
  const webBytes = pages.reduce((n, p) => n + Buffer.byteLength(p.text), 0);
  console.log(
    `geo-extract bench: demo test web (truth exported and read back in ${f1(exportMs / 1000)} s, ${int(truthRows)} entities in all); ` +
      `${pages.length} served pages spread over it (${geoPages} geographic, mean ${int(webBytes / pages.length)} B of visible text), ` +
      `rendered and parsed in ${f1((performance.now() - t0) / 1000)} s; node ${process.version}`,
  );
  console.log(
    `  test web: ${webScore.tp + webScore.fn} true addresses, ${webScore.tp + webScore.fp} found: precision ${f3(precision(webScore))}, ` +
      `recall ${f3(recall(webScore))} (${webScore.fp} false, ${webScore.fn} missed); target right on ${rightTarget} of ${webScore.tp} hits`,
  );

  // 2. The real fixtures.
  const real = await fixtures();
  const realScore: Score = { tp: 0, fp: 0, fn: 0 };
  const heldOutScore: Score = { tp: 0, fp: 0, fn: 0 };
  for (const f of real) {
    const found = extractAddresses(f.text, gazetteer);
    for (const a of found) h.update(`${f.file}|${a.number}|${a.street}|${a.city}|${a.state}|${a.zip}|${a.target};`);
    score(found, f.labels, realScore);
    if (f.isHeldOut) score(found, f.labels, heldOutScore);
  }
  const realBytes = real.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  console.log(
    `  real fixtures: ${real.length} files, ${int(realBytes)} B, ${realScore.tp + realScore.fn} labelled addresses: precision ${f3(precision(realScore))}, ` +
      `recall ${f3(recall(realScore))}; held-out files alone: precision ${f3(precision(heldOutScore))}, recall ${f3(recall(heldOutScore))} ` +
      `(${heldOutScore.tp + heldOutScore.fn} addresses)`,
  );
  const checksum = h.digest('hex');
  console.log(`outputs sha256:${checksum.slice(0, 16)}`);

  // 3. Speed.
  const bytesOf: Record<Stage, number> = {
    'extract:web': webBytes * WEB_REPEAT,
    'extract:real': realBytes * FIXTURE_REPEAT,
    'parse:web': webBytes,
  };
  const pagesOf: Record<Stage, number> = {
    'extract:web': pages.length * WEB_REPEAT,
    'extract:real': real.length * FIXTURE_REPEAT,
    'parse:web': pages.length,
  };
  const gc = (globalThis as { gc?: () => void }).gc;
  for (const stage of STAGES) measure(stage, pages, real, gazetteer);
  const samples = new Map<Stage, { wallMs: number; cpuMs: number }[]>(STAGES.map((s) => [s, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < STAGES.length; i++) {
      const stage = STAGES[(i + r) % STAGES.length] as Stage;
      gc?.();
      samples.get(stage)?.push(measure(stage, pages, real, gazetteer));
    }
  }
  const rows = Object.fromEntries(
    STAGES.map((stage) => {
      const s = samples.get(stage) ?? [];
      const cpuMs = median(s.map((x) => x.cpuMs));
      return [
        stage,
        {
          wallMs: median(s.map((x) => x.wallMs)),
          cpuMs,
          mbPerCoreS: bytesOf[stage] / 1e6 / (cpuMs / 1000),
          pagesPerCoreS: pagesOf[stage] / (cpuMs / 1000),
          cpuUsPerPage: (cpuMs * 1000) / pagesOf[stage],
        },
      ];
    }),
  ) as Record<Stage, { wallMs: number; cpuMs: number; mbPerCoreS: number; pagesPerCoreS: number; cpuUsPerPage: number }>;
  const pad = (s: string, w: number): string => s.padStart(w);
  console.log(
    `\n${'stage'.padEnd(14)}${pad('wall ms', 10)}${pad('cpu ms', 10)}${pad('MB/s/core', 12)}${pad('pages/s/core', 15)}${pad('cpu µs/page', 13)}`,
  );
  for (const stage of STAGES) {
    const r = rows[stage];
    console.log(
      `${stage.padEnd(14)}${pad(f1(r.wallMs), 10)}${pad(f1(r.cpuMs), 10)}${pad(f1(r.mbPerCoreS), 12)}${pad(int(r.pagesPerCoreS), 15)}${pad(f1(r.cpuUsPerPage), 13)}`,
    );
  }
  const share = (100 * rows['extract:web'].cpuUsPerPage) / rows['parse:web'].cpuUsPerPage;
  console.log(
    `(per round extract:web scans the pages ${WEB_REPEAT} times, extract:real the ${real.length} fixtures ${FIXTURE_REPEAT} times; ` +
      `extraction costs ${f1(share)} % of parseHtml on the same pages; medians of ${ROUNDS} rounds)`,
  );
  const load1 = loadavg()[0] ?? 0;
  console.log(
    `machine: ${cpus().length} CPUs, 1-min load average ${load0.toFixed(2)} at start, ${load1.toFixed(2)} at end (shared cores: compare versions in alternating runs)`,
  );

  const json = {
    pages: pages.length,
    geoPages,
    truthRows,
    webTextBytes: webBytes,
    web: { ...webScore, precision: precision(webScore), recall: recall(webScore), rightTarget },
    real: { files: real.length, bytes: realBytes, ...realScore, precision: precision(realScore), recall: recall(realScore) },
    heldOut: { ...heldOutScore, precision: precision(heldOutScore), recall: recall(heldOutScore) },
    rounds: ROUNDS,
    node: process.version,
    outputsSha256: checksum,
    stages: rows,
    extractShareOfParsePct: share,
    machine: { cpus: cpus().length, loadAvg1mStart: load0, loadAvg1mEnd: load1 },
    sink: blackHole % 1000,
  };
  console.log(`BENCH_GEO_JSON ${JSON.stringify(json)}`);
}

await main();
