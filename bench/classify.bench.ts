/**
 * `npm run bench:classify` (node --expose-gc --import tsx bench/classify.bench.ts [--quick]
 * [--pages N] [--rounds R] [--loads L]): what giving pages a topic costs, with the model shipped
 * with shoal (models/topic-en.json.gz). Prints figures, asserts none.
 *
 * 1. The model: its size on disk; its first load in a fresh process (bench/lib/model-load-child.ts:
 *    read, decode, build the classifier, and the heap, off-heap and RSS growth it leaves), then the
 *    median of L loads in this process (warm code, a full GC before each), as `loadTopicModel()` does
 *    them without its cache.
 * 2. Classification alone, on pages of the `demo` test web rendered in process (`encodePage`, as the
 *    server sends them), parsed once beforehand for their title, visible text and language:
 *    `classifier.classify` on every page whatever its language, and `TopicLabeler.label` (the X4
 *    pipeline with the crawl's default options: other languages are counted, not classified).
 * 3. The analysis a node runs on each page, `analyzePage()` of the bodies, without and with the
 *    labeler: the difference is what classification adds to a page.
 *
 * Each round runs every stage once over all pages, the stage order rotating from round to round;
 * figures are medians over rounds (a warm-up round is not counted). Per-core figures come from CPU
 * time (process.cpuUsage, user + system), so time the machine gives to others does not count. The
 * project's goal, at least 10,000 pages/s per core for classifying typical pages, is judged on
 * `classify` over every page. An `outputs` checksum (SHA-256 over every page's classification and
 * label) shows that two versions of the code answer alike. The last line is
 * `BENCH_CLASSIFY_JSON {...}` for scripts.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decodeModelFile } from '../src/classify/model-file.js';
import { SHIPPED_MODEL_PATH } from '../src/classify/model-loader.js';
import { NaiveBayesClassifier } from '../src/classify/naive-bayes.js';
import { countTerms } from '../src/classify/terms.js';
import { TopicLabeler, type PageText } from '../src/classify/topic-labeler.js';
import { decodeHtml, detectCharset } from '../src/parse/charset.js';
import { parseHtml } from '../src/parse/html-page.js';
import { detectLanguage } from '../src/parse/language.js';
import { analyzePage, type PageAnalysisInput, type PageAnalysisOptions } from '../src/parse/page-analysis.js';
import { PageKind, WebModel } from '../src/web/model.js';
import { WEB_PRESETS } from '../src/web/presets.js';
import { encodePage } from '../src/web/respond.js';
import type { FirstLoad } from './lib/model-load-child.js';

const PORT = 8080;
/** The crawl configuration's defaults (src/config/crawl-config.ts, `parse`). */
const PARSE_OPTIONS: PageAnalysisOptions = { anchorContextTokens: 10, maxLinks: 10_000, maxTextChars: 1_000_000 };
const GOAL_PAGES_PER_CORE_S = 10_000;

const STAGES = ['classify', 'label', 'analyze', 'analyze+label'] as const;
type Stage = (typeof STAGES)[number];

/** A page as the fetcher hands it over, and as the labeler reads it once parsed. */
interface Page extends PageText {
  readonly input: PageAnalysisInput;
  /** Title and body terms: what a classification scans. */
  readonly terms: number;
}

const args = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    pages: { type: 'string' },
    rounds: { type: 'string' },
    loads: { type: 'string' },
  },
  allowPositionals: false,
});
const isQuick = args.values.quick;
const PAGES = Number(args.values.pages ?? (isQuick ? 1000 : 3000));
const ROUNDS = Number(args.values.rounds ?? (isQuick ? 3 : 7));
const LOADS = Number(args.values.loads ?? (isQuick ? 3 : 7));

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

const f1 = (n: number): string => n.toFixed(1);
const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** The model's first load, in a child process of its own. */
function firstLoad(path: string): FirstLoad {
  const child = fileURLToPath(new URL('./lib/model-load-child.ts', import.meta.url));
  const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', child, path], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`model-load-child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as FirstLoad;
}

/** One load as `loadTopicModel()` does it, without its cache; the step times in ms. */
function loadOnce(path: string): { readMs: number; decodeMs: number; buildMs: number; totalMs: number; classifier: NaiveBayesClassifier } {
  const t0 = performance.now();
  const bytes = readFileSync(path);
  const t1 = performance.now();
  const file = decodeModelFile(bytes);
  const t2 = performance.now();
  const classifier = new NaiveBayesClassifier(file.model);
  const t3 = performance.now();
  return { readMs: t1 - t0, decodeMs: t2 - t1, buildMs: t3 - t2, totalMs: t3 - t0, classifier };
}

/** Served pages (ok and near-duplicates) of the demo test web, spread evenly over its page ids. */
function renderPages(count: number, termOptions: NaiveBayesClassifier['termOptions']): Page[] {
  const model = new WebModel(WEB_PRESETS.demo);
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
    const page = parseHtml(decodeHtml(body, detectCharset(body, contentType).charset), url, PARSE_OPTIONS);
    const language = detectLanguage(page.visibleText, page.lang).code;
    const terms = countTerms(page.title, termOptions) + countTerms(page.visibleText, termOptions);
    pages.push({ input: { url, body, contentType }, title: page.title, text: page.visibleText, language, terms });
  }
  return pages;
}

/** Runs `stage` over every page; returns a number that depends on every output (kept from dead-code elimination). */
function run(stage: Stage, pages: readonly Page[], labeler: TopicLabeler): number {
  let sink = 0;
  const classifier = labeler.classifier;
  switch (stage) {
    case 'classify':
      for (const p of pages) sink += classifier.classify(p).index;
      break;
    case 'label':
      for (const p of pages) sink += labeler.label(p).category?.length ?? 0;
      break;
    case 'analyze':
      for (const p of pages) sink += analyzePage(p.input, PARSE_OPTIONS).links.length;
      break;
    case 'analyze+label':
      for (const p of pages) sink += analyzePage(p.input, PARSE_OPTIONS, labeler).topic?.category?.length ?? 0;
      break;
  }
  return sink;
}

/** SHA-256 over every page's classification (every probability's bits) and label. */
function outputsChecksum(pages: readonly Page[], labeler: TopicLabeler): string {
  const h = createHash('sha256');
  for (const p of pages) {
    const c = labeler.classifier.classify(p);
    h.update(`${c.category}|${c.index}|${c.probability}|${c.terms}|${c.known}|`);
    h.update(new Uint8Array(c.probabilities.buffer, c.probabilities.byteOffset, c.probabilities.byteLength));
    h.update(JSON.stringify(labeler.label(p)));
  }
  return h.digest('hex');
}

let blackHole = 0;

function measure(stage: Stage, pages: readonly Page[], labeler: TopicLabeler): { wallUs: number; cpuUs: number } {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  blackHole += run(stage, pages, labeler);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return { wallUs: (wallMs * 1000) / pages.length, cpuUs: (cpu.user + cpu.system) / pages.length };
}

function main(): void {
  const load0 = loadavg()[0] ?? 0;
  const path = SHIPPED_MODEL_PATH;
  const fileBytes = statSync(path).size;

  // 1. The model.
  const first = firstLoad(path);
  const gc = (globalThis as { gc?: () => void }).gc;
  // A full GC first, so that no load pays for collecting the one before it.
  const loads = Array.from({ length: LOADS }, () => {
    gc?.();
    return loadOnce(path);
  });
  const classifier = loads.at(-1)?.classifier as NaiveBayesClassifier;
  const warm = {
    readMs: median(loads.map((l) => l.readMs)),
    decodeMs: median(loads.map((l) => l.decodeMs)),
    buildMs: median(loads.map((l) => l.buildMs)),
    totalMs: median(loads.map((l) => l.totalMs)),
  };
  const features = classifier.model.features.length;
  const categories = classifier.categories.length;
  console.log(
    `classify bench: model ${path}\n  ${int(fileBytes)} bytes on disk (gzip), ${int(features)} features, ${categories} categories, digest ${classifier.digest.slice(0, 16)}`,
  );
  console.log(
    `  first load in a fresh process: ${f1(first.totalMs)} ms (read ${f1(first.readMs)}, decode ${f1(first.decodeMs)}, build ${f1(first.buildMs)}); ` +
      `after it: heap +${mb(first.heapUsedGrowthBytes)}, off-heap +${mb(first.externalGrowthBytes)}, RSS +${mb(first.rssGrowthBytes)}`,
  );
  console.log(
    `  load in a warm process, median of ${LOADS}: ${f1(warm.totalMs)} ms (read ${f1(warm.readMs)}, decode ${f1(warm.decodeMs)}, build ${f1(warm.buildMs)})`,
  );

  // 2 and 3. The pages, then the stages.
  const labeler = new TopicLabeler(classifier);
  const t0 = performance.now();
  const pages = renderPages(PAGES, classifier.termOptions);
  const n = pages.length;
  const meanBytes = pages.reduce((a, p) => a + p.input.body.length, 0) / n;
  const meanChars = pages.reduce((a, p) => a + p.text.length, 0) / n;
  const totalTerms = pages.reduce((a, p) => a + p.terms, 0);
  const english = pages.filter((p) => p.language === 'en').length;
  const reasons: Record<string, number> = {};
  for (const p of pages) {
    const r = labeler.label(p).reason;
    reasons[r] = (reasons[r] ?? 0) + 1;
  }
  console.log(
    `\n${n} demo test-web pages (mean ${int(meanBytes)} B of HTML, ${int(meanChars)} chars and ${int(totalTerms / n)} terms of title and text; ` +
      `${f1((100 * english) / n)} % English; labels by ${Object.entries(reasons)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}), ` +
      `rendered in ${f1((performance.now() - t0) / 1000)} s; ${ROUNDS} rounds after a warm-up; node ${process.version}`,
  );
  const checksum = outputsChecksum(pages, labeler);
  console.log(`outputs sha256:${checksum.slice(0, 16)}`);

  for (const stage of STAGES) measure(stage, pages, labeler);
  const samples = new Map<Stage, { wallUs: number; cpuUs: number }[]>(STAGES.map((s) => [s, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < STAGES.length; i++) {
      const stage = STAGES[(i + r) % STAGES.length] as Stage;
      samples.get(stage)?.push(measure(stage, pages, labeler));
    }
  }
  const rows = Object.fromEntries(
    STAGES.map((stage) => {
      const s = samples.get(stage) ?? [];
      const cpuUs = median(s.map((x) => x.cpuUs));
      return [
        stage,
        {
          wallUsPerPage: median(s.map((x) => x.wallUs)),
          cpuUsPerPage: cpuUs,
          pagesPerCoreS: 1e6 / cpuUs,
          // Per 1,000 terms scanned: of classification alone (an analysis's cost is mostly elsewhere).
          cpuUsPer1000Terms: stage === 'classify' || stage === 'label' ? (cpuUs * n * 1000) / totalTerms : null,
        },
      ];
    }),
  ) as Record<Stage, { wallUsPerPage: number; cpuUsPerPage: number; pagesPerCoreS: number; cpuUsPer1000Terms: number | null }>;

  const pad = (s: string, w: number): string => s.padStart(w);
  console.log(
    `\n${'stage'.padEnd(15)}${pad('wall µs/page', 14)}${pad('cpu µs/page', 13)}${pad('pages/s/core', 14)}${pad('cpu µs/1k terms', 17)}`,
  );
  for (const stage of STAGES) {
    const r = rows[stage];
    const perThousand = r.cpuUsPer1000Terms === null ? '-' : f1(r.cpuUsPer1000Terms);
    console.log(
      `${stage.padEnd(15)}${pad(f1(r.wallUsPerPage), 14)}${pad(f1(r.cpuUsPerPage), 13)}${pad(int(r.pagesPerCoreS), 14)}${pad(perThousand, 17)}`,
    );
  }
  // Paired by round (the two ran close together), then the median: steadier than a difference of medians.
  const withLabel = samples.get('analyze+label') ?? [];
  const without = samples.get('analyze') ?? [];
  const addedUs = median(without.map((x, r) => (withLabel[r]?.cpuUs ?? Number.NaN) - x.cpuUs));
  const addedPct = median(without.map((x, r) => (100 * ((withLabel[r]?.cpuUs ?? Number.NaN) - x.cpuUs)) / x.cpuUs));
  console.log(
    `(classification adds ${f1(addedUs)} µs of CPU per analysed page, ${f1(addedPct)} % of analyzePage without it; medians of the differences by round)`,
  );
  const goalMet = rows.classify.pagesPerCoreS >= GOAL_PAGES_PER_CORE_S;
  console.log(
    `classification: ${int(rows.classify.pagesPerCoreS)} pages/s per core (classify, every page); ` +
      `goal ${int(GOAL_PAGES_PER_CORE_S)} pages/s per core: ${goalMet ? 'MET' : 'MISSED'}`,
  );
  const load1 = loadavg()[0] ?? 0;
  console.log(
    `machine: ${cpus().length} CPUs, 1-min load average ${load0.toFixed(2)} at start, ${load1.toFixed(2)} at end (shared cores: compare versions in alternating runs)`,
  );

  const json = {
    model: { path, fileBytes, features, categories, digest: classifier.digest, firstLoad: first, warmLoad: { loads: LOADS, ...warm } },
    pages: n,
    meanHtmlBytes: Math.round(meanBytes),
    meanTextChars: Math.round(meanChars),
    meanTerms: totalTerms / n,
    englishShare: english / n,
    labelReasons: reasons,
    rounds: ROUNDS,
    node: process.version,
    outputsSha256: checksum,
    stages: rows,
    classificationAddsUsPerPage: addedUs,
    classificationAddsPct: addedPct,
    goal: { pagesPerCoreS: GOAL_PAGES_PER_CORE_S, isMet: goalMet },
    machine: { cpus: cpus().length, loadAvg1mStart: load0, loadAvg1mEnd: load1 },
    sink: blackHole % 1000,
  };
  console.log(`BENCH_CLASSIFY_JSON ${JSON.stringify(json)}`);
}

main();
