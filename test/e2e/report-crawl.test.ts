/**
 * `shoal report CRAWL_DIR --truth TRUTH` as a user runs it (in process, runCli) on crawls of the
 * `tiny` test web: once with one node, once with three (`--nodes 3`, host-hash). The page is then
 * opened in headless chromium (test/helpers/browser.ts): every chart drew (bars with a height, lines
 * with a length), nothing was logged as an error, no request left the page but its own file, and
 * the key figures on the page are the crawl's: the pages its summary printed, and the coverage and
 * per-node pages `shoal eval` gives. The screenshot is kept as `CRAWL_DIR/report.png`.
 *
 * The crawl directories go under `$SHOAL_TEST_ARTIFACTS/report-crawl/` when that variable is set
 * (kept, for CI to collect the page and its screenshot), else into a scratch directory removed at the end.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { WEB_PRESETS } from '../../src/web/presets.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { launchChromium, watchPage } from '../helpers/browser.js';
import { runInProcess } from '../helpers/cli.js';
import { scratchDirs } from '../helpers/scratch.js';

const kept = process.env['SHOAL_TEST_ARTIFACTS'];
const dir = kept === undefined ? scratchDirs('shoal-report-crawl-').root : join(kept, 'report-crawl');
const truthDir = join(dir, 'truth');
/** Hosts whose robots.txt or pages fail are tried again within half a second, not minutes. */
const ENV = {
  SHOAL_CRAWL_POLITENESS_BACKOFF_BASE_MS: '50',
  SHOAL_CRAWL_POLITENESS_BACKOFF_MAX_MS: '500',
  SHOAL_CRAWL_ROBOTS_RETRY_MS: '100',
};
let web: TestWeb;
let browser: Browser;

before(async () => {
  if (kept !== undefined) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
  }
  // The tiny web without its slow hosts, crawl delays and traps: a crawl of a few seconds.
  web = await startTestWeb({ ...WEB_PRESETS.tiny, latency: { slowHostRate: 0 }, robots: { crawlDelayRate: 0 }, traps: { hostRate: 0 } });
  await exportTruth(web.model, truthDir, { port: web.port });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await web?.close();
});

interface EvalJson {
  readonly metrics: {
    readonly nodes: readonly { readonly node: string; readonly pages: number }[];
    readonly coverage: { readonly coverage: number } | null;
    readonly communication: { readonly downloads: number };
  };
}

/** Crawls into `out` and returns the pages the crawl's summary printed. */
async function crawl(out: string, extra: readonly string[]): Promise<number> {
  const run = await runInProcess(
    [
      'crawl',
      ...['--seeds-file', web.seedsFile, '--hosts-file', web.hostsFile, '--allow-loopback', '--min-delay-ms', '0'],
      ...['--set', 'politeness.delayFactor=0', '--out', out, ...extra],
    ],
    ENV,
  );
  assert.equal(run.code, 0, run.err);
  const pages = /^ {2}pages +([\d,]+) /m.exec(run.out);
  assert.ok(pages !== null, run.out);
  return Number((pages[1] as string).replace(/,/g, ''));
}

/** What the page shows, read in the browser. */
interface PageView {
  readonly charts: readonly { readonly name: string; readonly bars: number; readonly lineLength: number }[];
  readonly figures: Readonly<Record<string, string>>;
}

/**
 * Read in the browser: each chart's drawn bars (with a box) and the length of its lines, and the
 * figures by name. A string, so that the test runner's transform of functions never reaches the page.
 */
const READ_PAGE = `(() => {
  const all = (root, selector) => Array.from(root.querySelectorAll(selector));
  return {
    charts: all(document, 'figure.chart').map((f) => ({
      name: f.getAttribute('data-chart'),
      bars: all(f, 'svg rect.bar').filter((r) => r.getBBox().width > 0 && r.getBBox().height > 0).length,
      lineLength: all(f, 'svg path').reduce((sum, p) => sum + p.getTotalLength(), 0),
    })),
    figures: Object.fromEntries(all(document, '[data-figure]').map((e) => [e.getAttribute('data-figure'), e.textContent])),
  };
})()`;

async function view(out: string): Promise<PageView> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  try {
    const watch = await watchPage(page, { isOffline: true });
    const url = pathToFileURL(join(out, 'report.html')).href;
    await page.goto(url, { waitUntil: 'load' });
    const seen = (await page.evaluate(READ_PAGE)) as PageView;
    await page.screenshot({ path: join(out, 'report.png'), fullPage: true });
    assert.deepEqual(watch.consoleErrors, [], 'no console error');
    assert.deepEqual(watch.pageErrors, [], 'no page error');
    assert.deepEqual(watch.failedRequests, [], 'no failed request');
    assert.deepEqual(watch.requests, [url], 'no request but the page itself');
    return seen;
  } finally {
    await page.close();
  }
}

const count = (text: string | undefined): number => Number((text ?? '').replace(/,/g, ''));

/** Runs the report on `out`, checks its files, the page in the browser, and its figures against the crawl and `shoal eval`. */
async function reportAndCheck(out: string, crawledPages: number, charts: readonly string[]): Promise<PageView> {
  const run = await runInProcess(['report', out, '--truth', truthDir]);
  assert.equal(run.code, 0, run.err);
  assert.match(
    run.out,
    new RegExp(`shoal report: crawl of .*, ${crawledPages.toLocaleString('en-US')} pages in [\\d.]+ s; wrote .*report\\.html`),
  );
  for (const file of ['report.html', 'report.json', 'throughput.csv', 'nodes.csv', 'outcomes.csv', 'latency.csv', 'coverage.csv'])
    assert.ok(existsSync(join(out, file)), file);

  const evaluated = await runInProcess(['eval', out, '--truth', truthDir, '--json']);
  assert.equal(evaluated.code, 0, evaluated.err);
  const metrics = (JSON.parse(evaluated.out) as EvalJson).metrics;

  const seen = await view(out);
  assert.deepEqual(
    seen.charts.map((c) => c.name),
    charts,
  );
  for (const c of seen.charts) assert.ok(c.bars > 0 || c.lineLength > 0, `chart ${c.name} drew nothing: ${JSON.stringify(c)}`);
  assert.equal(count(seen.figures['pages']), crawledPages, 'pages on the page = the crawl’s');
  assert.equal(crawledPages, metrics.communication.downloads);
  assert.ok(metrics.coverage !== null && metrics.coverage.coverage > 0.9, JSON.stringify(metrics.coverage));
  assert.equal(seen.figures['coverage'], `${(100 * metrics.coverage.coverage).toFixed(2)} %`);
  for (const n of metrics.nodes) assert.equal(count(seen.figures[`pages:${n.node}`]), n.pages, `pages of ${n.node}`);
  const json = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { totals: { pages: number } };
  assert.equal(json.totals.pages, crawledPages);
  return seen;
}

const CHARTS = ['throughput-pages', 'throughput-bytes', 'outcomes', 'status-classes', 'latency'];
const TOPIC_CHARTS = ['topic-categories', 'topic-tau'];

describe('shoal report on a crawl directory', () => {
  it('one node: a page whose every chart drew, with the crawl’s figures', { timeout: 180_000 }, async () => {
    const out = join(dir, 'one');
    const pages = await crawl(out, []);
    await reportAndCheck(out, pages, [...CHARTS, 'locality', 'coverage', ...TOPIC_CHARTS]);
    assert.ok(!existsSync(join(out, 'pairs.csv')), 'no pairs for one node');
  });

  it('three nodes: the nodes’ loads, overlap and communication too', { timeout: 180_000 }, async () => {
    const out = join(dir, 'three');
    const pages = await crawl(out, ['--nodes', '3', '--partition', 'host-hash']);
    await reportAndCheck(out, pages, [
      ...CHARTS,
      'load-pages',
      'load-bytes',
      'overlap-histogram',
      'locality',
      'exchange-urls',
      'exchange-bytes',
      'coverage',
      ...TOPIC_CHARTS,
    ]);
    const pairs = readFileSync(join(out, 'pairs.csv'), 'utf8');
    assert.match(pairs, /^from_node,to_node,urls\nshoal-0,shoal-0,\d+\n/);
  });

  it('refuses a directory that is neither a crawl nor a simulation, and --truth on a simulation', async () => {
    const run = await runInProcess(['report', truthDir]);
    assert.equal(run.code, 1);
    assert.match(run.err, /is neither a simulation directory .* nor a crawl directory/);
    const simulation = join(dir, 'simulation');
    mkdirSync(simulation, { recursive: true });
    writeFileSync(join(simulation, 'result.json'), '{}');
    const withTruth = await runInProcess(['report', simulation, '--truth', truthDir]);
    assert.equal(withTruth.code, 2);
    assert.match(withTruth.err, /--truth: .* is a simulation directory/);
  });
});
