/**
 * Seeds from a seeds file and from sitemaps in a crawl of the test web. A seeds file larger than one
 * batch is queued while the crawl runs: every URL it names is crawled once. Sitemap seeds judged by its exported truth (which hosts serve a
 * sitemap, which announce it in robots.txt, and that a sitemap lists a host's ok pages):
 *
 * - sitemaps given by the user: with `scope.maxDepth: 0` no link is followed, so the pages crawled
 *   are exactly what the sitemaps (and their index parts, one level down) list;
 * - sitemaps announced by robots.txt (`seeds.robotsSitemaps`): every announced sitemap is read, an
 *   unannounced one never is, and the pages they list are crawled (or denied by robots.txt);
 * - a sitemap URL that is not a sitemap (an HTML page) is logged and the crawl goes on.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { readCrawlLog, type CrawlLogEntry } from '../../../src/store/crawl-log.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import type { TruthHost } from '../../../src/web/truth/format.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';
import { NO_FAULTS } from '../../helpers/test-web.js';

const WEB = {
  seed: 17,
  hosts: 16,
  pages: 900,
  seeds: 4,
  server: { addressCount: 4 },
  latency: { slowHostRate: 0 },
  traps: { hostRate: 0 },
  robots: {
    serverErrorRate: 0,
    unavailableRate: 0,
    crawlDelayRate: 0,
    redirectRate: 0,
    sitemapRate: 0.8,
    sitemapListedRate: 0.5,
    sitemapMaxUrls: 30,
  },
  faults: NO_FAULTS,
  duplicates: { mirrorHostRate: 0 },
} satisfies WebConfigInput;

let web: TestWeb;
let truth: Truth;
let root: string;
const origin = (h: TruthHost): string => `http://${h.name}:${web.port}`;

/** The URLs a host's sitemap lists: its ok pages. */
function listed(h: TruthHost): string[] {
  const ok = truth.manifest.pageKinds.indexOf('ok');
  const urls: string[] = [];
  for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++) if (truth.kind[g] === ok) urls.push(`${origin(h)}${truth.paths.at(g)}`);
  return urls;
}

async function crawl(
  name: string,
  config: Record<string, unknown>,
): Promise<{ summary: CrawlSummary; log: CrawlLogEntry[]; nodeLog: string }> {
  const out = join(root, name);
  const summary = await new Crawl({
    nodeId: name,
    store: { outDir: out },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: 0, delayFactor: 0 },
    limits: { concurrency: 16 },
    progressIntervalMs: 0,
    ...config,
  }).run();
  const log: CrawlLogEntry[] = [];
  for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) log.push(e);
  return { summary, log, nodeLog: readFileSync(join(out, 'logs', 'node.jsonl'), 'utf8') };
}

before(async () => {
  web = await startTestWeb(WEB);
  root = mkdtempSync(join(tmpdir(), 'shoal-crawl-sitemaps-'));
  await exportTruth(web.model, join(root, 'truth'), { port: web.port });
  truth = await readTruth(join(root, 'truth'));
});

after(async () => {
  await web?.close();
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
});

describe('sitemap seeds', () => {
  test('sitemaps given by the user: exactly the pages they list (index parts included), and a sitemap that is an HTML page is logged', async () => {
    const withSitemap = truth.hosts.filter((h) => h.sitemap !== 'none');
    const chosen = withSitemap.slice(0, 4);
    assert.ok(
      chosen.some((h) => listed(h).length > WEB.robots.sitemapMaxUrls),
      'one host at least serves a sitemap index',
    );
    const without = truth.hosts.find((h) => h.sitemap === 'none' && listed(h).length > 0);
    assert.ok(without !== undefined);
    const notASitemap = listed(without)[0] as string; // an HTML page given as a sitemap
    const { summary, log, nodeLog } = await crawl('user', {
      seeds: {
        sitemaps: [...chosen.map((h) => `${origin(h)}/sitemap.xml`), `${origin(chosen[1] as TruthHost)}/no-such-sitemap.xml`, notASitemap],
      },
      scope: { maxDepth: 0 },
    });
    const expected = new Set(chosen.flatMap(listed));
    const pages = log.filter(
      (e) => !/\/sitemap[^/]*\.xml$/.test(e.url) && !e.url.endsWith('/no-such-sitemap.xml') && e.url !== notASitemap,
    );
    const crawled = new Set(pages.map((e) => e.url));
    assert.deepEqual(
      [...crawled].filter((u) => !expected.has(u)),
      [],
      'no page that a sitemap does not list',
    );
    assert.deepEqual(
      [...expected].filter((u) => !crawled.has(u)),
      [],
      'every listed page',
    );
    const odd = pages.filter((e) => !(e.depth === 0 && e.discoveredFrom !== null && /\/sitemap[^/]*\.xml$/.test(e.discoveredFrom)));
    assert.deepEqual(
      odd.map((e) => [e.url, e.depth, e.discoveredFrom]),
      [],
      'pages found on a sitemap, at depth 0',
    );
    // Index parts: found on the index, one level down.
    const parts = log.filter((e) => /\/sitemap-\d+\.xml$/.test(e.url));
    assert.ok(parts.length > 0);
    for (const p of parts) assert.deepEqual([p.outcome, p.depth, p.discoveredFrom?.endsWith('/sitemap.xml')], ['ok', 1, true], p.url);
    assert.equal(summary.sitemaps.urls, expected.size);
    assert.equal(summary.sitemaps.documents, chosen.length + parts.length + 1);
    assert.equal(summary.sitemaps.problems, 1);
    assert.match(nodeLog, /"sitemap-problem".*"problem":"html"/);
    assert.equal(log.find((e) => e.url.endsWith('/no-such-sitemap.xml'))?.outcome, 'http-error');
    assert.equal(summary.stopReason, 'exhausted');
  });

  test('sitemaps announced by robots.txt: every announced one is read, no other, and their pages are crawled', async () => {
    const seeds = truth.hosts.map((h) => `${origin(h)}/`);
    const { summary, log } = await crawl('robots', { seeds: { urls: seeds, robotsSitemaps: true }, scope: { maxDepth: 0 } });
    const announced = truth.hosts.filter((h) => h.sitemap === 'listed');
    const unlisted = truth.hosts.filter((h) => h.sitemap === 'unlisted');
    assert.ok(announced.length >= 2 && unlisted.length >= 2, `${announced.length} announced, ${unlisted.length} not`);
    const byUrl = new Map(log.map((e) => [e.url, e]));
    for (const h of announced) {
      const doc = byUrl.get(`${origin(h)}/sitemap.xml`);
      assert.equal(doc?.outcome, 'ok', h.name);
      assert.equal(doc?.discoveredFrom, `${origin(h)}/robots.txt`);
      // Every listed page was decided: fetched, or denied by the host's robots.txt.
      for (const u of listed(h))
        assert.ok(['ok', 'robots-denied'].includes(byUrl.get(u)?.outcome ?? 'missing'), `${u}: ${byUrl.get(u)?.outcome}`);
    }
    for (const h of unlisted) {
      assert.equal(byUrl.has(`${origin(h)}/sitemap.xml`), false, `${h.name}: not announced, not read`);
      const fromHost = log.filter((e) => e.url.startsWith(`${origin(h)}/`) && e.url !== `${origin(h)}/`);
      assert.deepEqual(
        fromHost.map((e) => e.url),
        [],
        `${h.name}: only its seed (maxDepth 0)`,
      );
    }
    assert.ok(summary.sitemaps.urls > 0);
  });
});

describe('a seeds file', () => {
  test('larger than one batch, with repeats and comments: every URL it names crawled once, nothing else', async () => {
    const urls = truth.hosts.flatMap(listed);
    const lines: string[] = ['# every ok page of the web, twenty times over'];
    for (let r = 0; r < 20; r++)
      for (const u of urls)
        lines.push(r % 2 === 0 ? u : `  ${u.replace(/^http:\/\/([^/]+)/, (_m, host: string) => `HTTP://${host.toUpperCase()}`)}#frag  `);
    assert.ok(lines.length > 10_000, `${lines.length} lines: more than one batch`);
    const file = join(root, 'seeds.txt');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const { summary, log } = await crawl('seeds-file', { seeds: { file }, scope: { maxDepth: 0 } });
    assert.equal(summary.stopReason, 'exhausted');
    const crawled = log.map((e) => e.url);
    assert.equal(new Set(crawled).size, crawled.length, 'each URL once');
    assert.deepEqual(new Set(crawled), new Set(urls));
  });
});
