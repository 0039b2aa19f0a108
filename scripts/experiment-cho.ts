/**
 * `npm run experiment:cho` (node --import tsx scripts/experiment-cho.ts [--cache DIR]): reproduces
 * the URL-ordering findings of seed 004 (Cho, Garcia-Molina & Page, §6–7, Graphs 2, 4, 7–9) with
 * shoal's simulator on two graphs, and regenerates docs/experiments/url-ordering.md and its charts
 * (docs/experiments/url-ordering/*.svg) from the results. The document is never edited by hand.
 *
 * (a) A test web of 124,567 pages: its ground truth exported into the cache directory (reused when
 *     present) and read back with its pages rebuilt for titles, text and anchors.
 * (b) Real HTML: three Debian documentation packages served by the test web's replay mode and
 *     crawled for real by shoal over loopback (the crawl directory is cached too), read as a crawl
 *     graph with its page text from the WARC files. The folders must be installed (see DOCS_INSTALL).
 *
 * Cache: `--cache DIR`, default `<tmp>/shoal-experiment-cho`. Delete it to rebuild both graphs.
 * Takes a few minutes on a 2-core machine; progress goes to stderr.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadCrawlGraph } from '../src/sim/graph/crawl-graph.js';
import type { SimGraph } from '../src/sim/graph/sim-graph.js';
import { CRAWL_LOG_FILE, readCrawlLog } from '../src/store/crawl-log.js';
import { ensureTruth } from '../src/web/truth/ensure.js';
import { checkDocsFolders, DOCS_SITES, docsCrawl, seedsInSiteOrder } from './experiment/docs-crawl.js';
import { runGraphExperiments, type GraphResult } from './experiment/experiments.js';
import { fetchedSubgraph, withContentInMemory } from './experiment/graph-views.js';
import { renderReport, type BuildStep } from './experiment/report.js';
import { politeSettings } from './experiment/runs.js';
import { loadTestWebGraph, TEST_WEB_CONFIG } from './experiment/test-web-graph.js';

const COMMAND = 'npm run experiment:cho';
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DOC = join(ROOT, 'docs', 'experiments', 'url-ordering.md');
const CHART_DIR_NAME = 'url-ordering';
const CHART_DIR = join(ROOT, 'docs', 'experiments', CHART_DIR_NAME);
const HTML_TYPES: ReadonlySet<string> = new Set(['text/html', 'application/xhtml+xml']);

const { values: flags } = parseArgs({ options: { cache: { type: 'string' } } });
const cacheDir = flags.cache ?? join(tmpdir(), 'shoal-experiment-cho');
const started = performance.now();

function log(line: string): void {
  process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
}

/** Runs `step`, timing it. */
async function timed<T>(steps: BuildStep[], label: string, step: () => Promise<T> | T, isCached = false): Promise<T> {
  const t0 = performance.now();
  const value = await step();
  steps.push({ label, ms: performance.now() - t0, isCached });
  return value;
}

const progress =
  (what: string) =>
  (done: number, total: number): void => {
    log(`  ${what}: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} pages`);
  };

function writeChart(file: string, svg: string): void {
  writeFileSync(join(CHART_DIR, file), svg);
}

/** Graph (a): the test web. */
async function webGraph(): Promise<{ readonly result: GraphResult; readonly steps: BuildStep[] }> {
  const steps: BuildStep[] = [];
  const dir = join(cacheDir, 'test-web-truth');
  log(`graph (a): the test web's truth in ${dir}`);
  const t0 = performance.now();
  const { isCached } = await ensureTruth(TEST_WEB_CONFIG, dir);
  steps.push({ label: 'truth export', ms: performance.now() - t0, isCached });
  const loaded = await timed(steps, 'truth read', () => loadTestWebGraph(dir));
  log(
    `graph (a): ${loaded.pageCount.toLocaleString('en-US')} pages, ${loaded.linkCount.toLocaleString('en-US')} ` +
      `links; rendering and parsing every page once (titles, text, anchors)`,
  );
  let graph: SimGraph | null = null;
  try {
    graph = await timed(steps, 'pages rebuilt and parsed', () => withContentInMemory(loaded, progress('graph (a) content')));
    const result = await runGraphExperiments('web', 'test web', graph, graph.seeds, writeChart, log);
    return { result, steps };
  } finally {
    loaded.close();
  }
}

/** Graph (b): the documentation crawl. */
async function docsGraph(): Promise<{
  readonly result: GraphResult;
  readonly steps: BuildStep[];
  readonly crawl: Awaited<ReturnType<typeof docsCrawl>>['facts'];
  readonly crawlGraph: { pages: number; links: number };
}> {
  const steps: BuildStep[] = [];
  const dir = join(cacheDir, 'docs-crawl');
  log(`graph (b): crawling the documentation into ${dir}`);
  const t0 = performance.now();
  const crawl = await docsCrawl(dir, log);
  steps.push({ label: 'crawl', ms: performance.now() - t0, isCached: crawl.isCached });
  const loaded = await timed(steps, 'crawl graph read', () => loadCrawlGraph([dir], { withContent: true }));
  try {
    const fetched = new Set<string>();
    for await (const e of readCrawlLog(join(dir, CRAWL_LOG_FILE))) {
      if (e.outcome === 'ok' && e.status >= 200 && e.status < 300 && (e.contentType === null || HTML_TYPES.has(e.contentType)))
        fetched.add(e.url);
    }
    const sub = fetchedSubgraph(loaded, (p) => fetched.has(loaded.urlOf(p)));
    log(
      `graph (b): ${loaded.pageCount.toLocaleString('en-US')} URLs, cut to ${sub.pageCount.toLocaleString('en-US')} HTML pages; reading every page from the WARC files once`,
    );
    const graph = await timed(steps, 'pages read from the WARC files and parsed', () =>
      withContentInMemory(sub, progress('graph (b) content')),
    );
    const result = await runGraphExperiments('docs', 'documentation', graph, seedsInSiteOrder(graph), writeChart, log);
    return { result, steps, crawl: crawl.facts, crawlGraph: { pages: loaded.pageCount, links: loaded.linkCount } };
  } finally {
    loaded.close();
  }
}

async function main(): Promise<void> {
  // Fail before any long step when graph (b) cannot be built.
  checkDocsFolders();
  mkdirSync(cacheDir, { recursive: true });
  mkdirSync(CHART_DIR, { recursive: true });
  for (const f of readdirSync(CHART_DIR)) if (f.endsWith('.svg')) rmSync(join(CHART_DIR, f));
  const web = await webGraph();
  const docs = await docsGraph();
  const report = renderReport({
    command: COMMAND,
    date: new Date().toISOString().slice(0, 10),
    nodeVersion: process.versions.node,
    cpus: availableParallelism(),
    totalMs: performance.now() - started,
    chartDir: CHART_DIR_NAME,
    web: { result: web.result, config: TEST_WEB_CONFIG, steps: web.steps },
    docs: { result: docs.result, sites: DOCS_SITES, crawl: docs.crawl, steps: docs.steps, crawlGraph: docs.crawlGraph },
    polite: politeSettings(),
  });
  writeFileSync(DOC, report);
  log(`wrote ${DOC} and ${readdirSync(CHART_DIR).length} charts in ${CHART_DIR}`);
}

main().catch((err: unknown) => {
  process.stderr.write(`experiment:cho: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
