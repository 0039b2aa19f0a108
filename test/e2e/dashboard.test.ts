/**
 * The live dashboard end to end (docs/dashboard.md):
 *
 * - an embedded crawl of 3 nodes over the `tiny` test web, with a truth named, its dashboard opened
 *   in headless chromium while it crawls: the pages counter goes up live, the uPlot charts are drawn,
 *   and once the crawl is over every figure on the page equals `/api/state`'s and its pages and
 *   exchange counts equal those `/metrics` gives a Prometheus scrape; the screenshot goes to
 *   the crawl directory (and, with SHOAL_DOCS_SCREENSHOT=1, to docs/dashboard.png);
 * - `shoal crawl --dashboard` prints the address, serves while it crawls, and ends with the crawl
 *   without leaving anything open;
 * - `shoal dashboard --nats` shows two `shoal node` processes of a distributed crawl, from the
 *   statistics they publish, and ends once both have left.
 *
 * Needs dist/ built (`npm run build`) for the processes, chromium and nats-server installed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { Crawl } from '../../src/crawl/crawl.js';
import type { CrawlConfigInput } from '../../src/config/crawl-config.js';
import { startCrawlDashboard } from '../../src/cli/crawl-dashboard.js';
import type { DashboardSnapshot } from '../../src/obs/dashboard/snapshot.js';
import { startTestWeb, type TestWeb } from '../../src/web/start.js';
import { WEB_PRESETS } from '../../src/web/presets.js';
import { exportTruth } from '../../src/web/truth/export.js';
import { launchChromium, watchPage } from '../helpers/browser.js';
import { startNatsServer } from '../helpers/nats-server.js';
import { parseScrape } from '../helpers/prometheus.js';
import { CrawlMetrics } from '../../src/obs/metrics/crawl-metrics.js';
import { startMetricsServer } from '../../src/obs/metrics/metrics-server.js';
import { runNodeProcess } from '../helpers/cli.js';
import { waitForLine } from '../helpers/wait.js';

const bin = fileURLToPath(new URL('../../bin/shoal.js', import.meta.url));
const docsScreenshot = fileURLToPath(new URL('../../docs/dashboard.png', import.meta.url));
/** Kept after the run (the screenshot is an artifact); emptied at the start. */
const artifactDir = join(tmpdir(), 'shoal-dashboard-e2e');
const nats = await startNatsServer();
let web: TestWeb;
let dir: string;
let truthDir: string;
let browser: Browser;

before(async () => {
  assert.ok(existsSync(fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))), 'dist/ is built (`npm run build`)');
  web = await startTestWeb(WEB_PRESETS.tiny);
  dir = mkdtempSync(join(tmpdir(), 'shoal-dashboard-'));
  truthDir = join(dir, 'truth');
  await exportTruth(web.model, truthDir, { port: web.port });
  browser = await launchChromium();
});

/** The dashboard processes still running: a test that fails before they end must not leave them holding this file open. */
const running = new Set<ReturnType<typeof spawn>>();

after(async () => {
  for (const child of running) child.kill('SIGKILL');
  await browser?.close();
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** What the functions run in the page use of it (the tests are compiled without the DOM's types). */
interface PageElement {
  readonly dataset: Readonly<Record<string, string | undefined>>;
}
interface PageGlobals {
  readonly document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): Iterable<PageElement> };
}
interface PageCanvas {
  readonly width: number;
  readonly height: number;
  getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { readonly data: Uint8ClampedArray } };
}

/** A crawl of the test web slow enough (150 ms between two requests to a host) to be watched for a few seconds. */
function crawlConfig(outDir: string, more: Partial<CrawlConfigInput> = {}): CrawlConfigInput {
  return {
    nodeId: 'dash',
    seeds: { urls: [...web.seeds] },
    store: { outDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 150, delayFactor: 1, backoffBaseMs: 50, backoffMaxMs: 500 },
    robots: { retryMs: 100, maxAttempts: 3 },
    limits: { concurrency: 12, maxPages: 300 },
    parse: { workers: 1 },
    ...more,
  };
}

/** The value a `data-figure` path names in a snapshot, as the page reads it (page-script.ts `valueAt`, and the rows it draws). */
function expectedFigure(s: DashboardSnapshot, path: string): unknown {
  const notOk = (o: Readonly<Record<string, number | undefined>>): number =>
    Object.entries(o).reduce((a, [k, n]) => (k === 'ok' ? a : a + (n ?? 0)), 0);
  const dig = (o: unknown, keys: readonly string[]): unknown =>
    keys.reduce<unknown>((x, k) => (x == null ? undefined : (x as Record<string, unknown>)[k]), o);
  const [head, ...rest] = path.split('.');
  if (path === 'totals.notOk') return notOk(s.totals.outcomes);
  if (path === 'nodes.length') return s.nodes.length;
  if (head === 'nodes') {
    const node = s.nodes.find((n) => n.id === rest[0]);
    const field = rest.slice(1).join('.');
    if (field === 'notOk') return node === undefined ? undefined : notOk(node.outcomes);
    if (field === 'state') return undefined;
    return dig(node, rest.slice(1));
  }
  if (head === 'exchange' && rest[0] === 'matrix') {
    const m = s.exchange.matrix;
    const i = m?.nodes.indexOf(rest[1] as string) ?? -1;
    const j = m?.nodes.indexOf(rest[2] as string) ?? -1;
    return i === j ? null : m?.counts[i]?.[j];
  }
  if (head === 'exchange')
    return dig(
      s.exchange.nodes.find((x) => x.id === rest[0]),
      rest.slice(1),
    );
  return dig(s, path.split('.'));
}

/** GETs `url` and parses the JSON body. */
function getJson<T>(url: string): Promise<T> {
  return getText(url).then((body) => JSON.parse(body) as T);
}

/** The body of a GET answered 200. */
function getText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${url}: ${res.statusCode} ${body}`))));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Reads the dashboard's event stream until a snapshot satisfies `isWanted`; resolves to it. */
function snapshotWhen(
  url: string,
  isWanted: (s: DashboardSnapshot) => boolean,
  what: string,
  timeoutMs = 90_000,
): Promise<DashboardSnapshot> {
  return new Promise((resolve, reject) => {
    let last: DashboardSnapshot | null = null;
    const req = request(url, { agent: false });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`timed out waiting for ${what}; last snapshot: ${JSON.stringify(last)?.slice(0, 2000)}`));
    }, timeoutMs);
    req.on('response', (res: IncomingMessage) => {
      let buffer = '';
      res.on('data', (c: Buffer) => {
        buffer += c.toString();
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^data: (.*)$/m.exec(block)?.[1];
          if (data === undefined) continue;
          last = JSON.parse(data) as DashboardSnapshot;
          if (!isWanted(last)) continue;
          clearTimeout(timer);
          req.destroy();
          resolve(last);
          return;
        }
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end();
  });
}

describe('the dashboard of an embedded crawl, in chromium', () => {
  test('goes live while 3 nodes crawl, draws its charts, and shows exactly /api/state at the end', async (t) => {
    rmSync(artifactDir, { recursive: true, force: true });
    mkdirSync(artifactDir, { recursive: true });
    const outDir = join(artifactDir, 'crawl');
    const crawl = new Crawl(crawlConfig(outDir, { cluster: { nodes: 3, truthDir }, dashboard: { enabled: true, port: 0 } }));
    let stderr = '';
    const dashboard = await startCrawlDashboard(crawl.config, { err: (text) => (stderr += text) });
    assert.ok(dashboard !== null, 'dashboard.enabled starts it');
    // The same crawl scraped as Prometheus would: the page's figures must agree with /metrics.
    const metrics = new CrawlMetrics().listen();
    const metricsServer = await startMetricsServer(metrics, { host: '127.0.0.1', port: 0, allowRemote: false });
    try {
      assert.match(stderr, /^shoal: dashboard on http:\/\/127\.0\.0\.1:\d+\/\n$/);
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      const seen = await watchPage(page);
      await page.goto(dashboard.url);
      const crawling = crawl.run();
      const pagesShown = async (): Promise<number> => Number(await page.getAttribute('[data-figure="totals.pages"]', 'data-value'));
      // Functions run in the page (serialized, so self-contained; the page allows no eval of strings).
      const pagesAbove = (min: number): boolean =>
        Number((globalThis as unknown as PageGlobals).document.querySelector('[data-figure="totals.pages"]')?.dataset.value) > min;
      await page.waitForFunction(pagesAbove, 0, { timeout: 60_000 });
      const first = await pagesShown();
      assert.equal(await page.getAttribute('#status', 'data-status'), 'live', `the crawl goes on after ${first} pages`);
      await page.waitForFunction(pagesAbove, first, { timeout: 60_000 });
      assert.ok((await pagesShown()) > first, 'the pages counter goes up while the crawl runs');
      // Each chart is a canvas with lines on it: pixels that are not transparent.
      const painted = (id: string): boolean => {
        const canvas = (globalThis as unknown as PageGlobals).document.querySelector(`#chart-${id} canvas`) as unknown as PageCanvas | null;
        if (canvas === null) return false;
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) n++;
        return n > 500;
      };
      for (const id of ['pps', 'bps', 'queued', 'quality']) await page.waitForFunction(painted, id, { timeout: 30_000 });
      await page.waitForFunction(pagesAbove, 179, { timeout: 60_000 });
      const shot = join(outDir, 'dashboard.png');
      await page.screenshot({ path: shot, fullPage: true });
      t.diagnostic(`screenshot: ${shot}`);
      if (process.env.SHOAL_DOCS_SCREENSHOT === '1') copyFileSync(shot, docsScreenshot);

      const summary = await crawling;
      assert.equal(summary.stopReason, 'max-pages');
      await page.waitForSelector('#status[data-status="stopped"]', { timeout: 30_000 });
      const state = await getJson<DashboardSnapshot>(`${dashboard.url}api/state`);
      assert.equal(state.crawl.stopReason, 'max-pages');
      assert.deepEqual(
        state.nodes.map((n) => n.id),
        ['dash-0', 'dash-1', 'dash-2'],
      );
      assert.equal(state.totals.pages, summary.pages, 'the dashboard counts what the crawl reports');
      assert.equal(state.partition?.from, 'crawl');
      assert.ok(state.truth !== null && state.truth.downloaded > 0 && (state.truth.coverage ?? 0) > 0, 'coverage against the truth');
      assert.ok(state.slowHosts.length > 0, 'the slowest hosts');
      assert.ok(state.exchange.matrix !== null && state.exchange.matrix.counts.flat().some((n) => n > 0), 'URLs handed between nodes');
      // Every figure on the page, as it is once the crawl is over, against the state.
      const figures = await page.evaluate(() =>
        [...(globalThis as unknown as PageGlobals).document.querySelectorAll('[data-figure]')].map((e) => [
          e.dataset.figure,
          e.dataset.value,
        ]),
      );
      let compared = 0;
      for (const [path = '', shown = ''] of figures) {
        const expected = expectedFigure(state, path);
        if (path === 'crawl.elapsedMs' || expected === undefined) continue;
        if (typeof expected === 'number') assert.equal(Number(shown), expected, `${path} on the page`);
        else assert.equal(shown, expected === null ? '' : String(expected), `${path} on the page`);
        compared++;
      }
      assert.ok(compared > 80, `${compared} figures compared`);
      // And against /metrics: pages in all and per node, URLs sent and received through the exchange.
      const scrape = parseScrape(await getText(metricsServer.url));
      const shown = new Map(figures.map(([path = '', value = '']) => [path, Number(value)]));
      assert.equal(shown.get('totals.pages'), scrape.value('shoal_pages_total'), 'pages on the page and in /metrics');
      for (const node of ['dash-0', 'dash-1', 'dash-2']) {
        assert.equal(shown.get(`nodes.${node}.pages`), scrape.value('shoal_pages_total', { node }), `${node}: pages`);
        for (const direction of ['sent', 'received'] as const) {
          const key = `nodes.${node}.exchange.urls${direction === 'sent' ? 'Sent' : 'Received'}`;
          assert.equal(shown.get(key), scrape.value('shoal_exchange_urls_total', { node, direction }), `${node}: URLs ${direction}`);
        }
      }
      assert.deepEqual([...seen.consoleErrors, ...seen.pageErrors, ...seen.failedRequests], [], 'no script error, no failed request');
      const origin = new URL(dashboard.url).origin;
      assert.deepEqual(
        seen.requests.filter((u) => !u.startsWith(origin)),
        [],
        'the page loads nothing from elsewhere',
      );
      await page.close();
    } finally {
      await dashboard.close();
      await metricsServer.close();
      metrics.close();
    }
  });
});

/** A `shoal` command running with a dashboard: its address once printed, what it wrote to stderr, its exit. */
interface ShoalWithDashboard {
  readonly url: string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  interrupt(): void;
}

/** Runs `shoal <args>` and resolves once it has printed where its dashboard is. */
async function shoalWithDashboard(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<ShoalWithDashboard> {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'ignore', 'pipe'], env });
  running.add(child);
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const [, url] = await waitForLine(child.stderr, /shoal: dashboard on (http:\/\/127\.0\.0\.1:\d+\/)\n/, { what: 'the dashboard line' });
  return { url: url as string, stderr: () => stderr, exited, interrupt: () => child.kill('SIGINT') };
}

/** `shoal crawl` of the test web into `out`. */
function crawlArgs(out: string, ...more: string[]): string[] {
  return [
    'crawl',
    ...web.seeds.flatMap((s) => ['--seed', s]),
    ...['--out', out, '--hosts-file', web.hostsFile, '--allow-loopback', '--min-delay-ms', '150', ...more],
  ];
}

describe('shoal crawl --dashboard', () => {
  test('prints where the dashboard is, serves while crawling, and ends with the crawl', async () => {
    const out = join(dir, 'cli');
    const shoal = await shoalWithDashboard(crawlArgs(out, '--max-pages', '120', '--dashboard', '--dashboard-port', '0'));
    const live = await snapshotWhen(`${shoal.url}events`, (s) => s.totals.pages > 0, 'pages on the dashboard');
    assert.equal(live.crawl.source, 'local');
    assert.equal(live.crawl.outDir, out);
    assert.equal(await shoal.exited, 0, shoal.stderr());
    assert.doesNotMatch(shoal.stderr(), /still open after the command ended/, 'the dashboard leaves nothing open');
    await assert.rejects(getJson(`${shoal.url}api/state`), /ECONNREFUSED/, 'the dashboard ended with the crawl');
  });

  test('Ctrl-C stops the crawl and its dashboard cleanly', async () => {
    const shoal = await shoalWithDashboard(crawlArgs(join(dir, 'cli-interrupted'), '--dashboard'));
    await snapshotWhen(`${shoal.url}events`, (s) => s.totals.pages > 0, 'pages on the dashboard');
    shoal.interrupt();
    assert.equal(await shoal.exited, 130, shoal.stderr());
    assert.doesNotMatch(shoal.stderr(), /still open after the command ended/);
    await assert.rejects(getJson(`${shoal.url}api/state`), /ECONNREFUSED/);
  });
});

describe('shoal dashboard --nats', () => {
  test('shows every node of a distributed crawl from their statistics, and ends when they have left', async () => {
    const crawlId = 'dash-a';
    const env = { ...process.env, SHOAL_CRAWL_CLUSTER_NATS_MEMBER_TTL_MS: '3000' };
    const watcher = await shoalWithDashboard(['dashboard', '--nats', nats.url, '--crawl', crawlId, '--dashboard-port', '0'], env);
    const node = (p: number): ReturnType<typeof runNodeProcess> =>
      runNodeProcess(
        [
          bin,
          'node',
          ...['--nats', nats.url, '--crawl', crawlId, '--nodes', '2', '--partitions', String(p), '--node-id', `n${p}`],
          ...crawlArgs(join(dir, `nats${p}`), '--max-pages', '200').slice(1),
        ],
        env,
      );
    const nodes = Promise.all([node(0), node(1)]);
    // The nodes publish their statistics on their own schedules: a snapshot can show both crawling
    // before either has published a URL sent, so the wait is for both.
    const both = await snapshotWhen(
      `${watcher.url}events`,
      (s) => s.nodes.length === 2 && s.nodes.every((n) => n.pages > 0) && s.exchange.nodes.some((x) => x.urlsSent > 0),
      'both nodes crawling and sending each other URLs on the dashboard',
    );
    assert.equal(both.crawl.source, 'nats');
    assert.equal(both.crawl.id, crawlId);
    assert.deepEqual(
      both.nodes.map((n) => [n.id, n.partitions]),
      [
        ['n0', [0]],
        ['n1', [1]],
      ],
    );
    assert.equal(
      both.totals.pages,
      both.nodes.reduce((a, n) => a + n.pages, 0),
    );
    assert.equal(both.partition?.from, 'nodes');
    assert.ok(both.partition?.loadMaxOverMean !== null, 'load balance from the nodes');
    assert.equal(both.exchange.nodes.length, 2, 'both nodes in the exchange table');
    const state = await getJson<DashboardSnapshot>(`${watcher.url}api/state`);
    assert.equal(state.nodes.length, 2);
    const [a, b] = await nodes;
    assert.equal(a.code, 0, a.stderr.slice(-2000));
    assert.equal(b.code, 0, b.stderr.slice(-2000));
    assert.equal(await watcher.exited, 0, watcher.stderr());
    assert.match(watcher.stderr(), /every node of crawl dash-a has left; closing/);
    assert.doesNotMatch(watcher.stderr(), /still open after the command ended/);
  });

  test('waits for a crawl that has not started, and Ctrl-C stops it', async () => {
    const watcher = await shoalWithDashboard(['dashboard', '--nats', nats.url, '--crawl', 'not-yet', '--dashboard-port', '0']);
    const empty = await getJson<DashboardSnapshot>(`${watcher.url}api/state`);
    assert.deepEqual([empty.crawl.id, empty.nodes.length, empty.totals.pages], ['not-yet', 0, 0]);
    watcher.interrupt();
    assert.equal(await watcher.exited, 130, watcher.stderr());
    assert.doesNotMatch(watcher.stderr(), /still open after the command ended/);
  });
});
