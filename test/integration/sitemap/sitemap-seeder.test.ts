/**
 * The sitemap seeder against the test web over real sockets on loopback, judged by the web's exported
 * truth (`hosts.tsv` says which hosts serve `/sitemap.xml` and whether robots.txt announces it;
 * `pages.tsv` says which pages are `ok`, which is exactly what a sitemap lists, in id order) and by
 * the server's request log (what was really fetched), not by what the seeder says about itself:
 *
 * - robots.txt `Sitemap:` lines, read by shoal's robots parser, lead to exactly the listed hosts'
 *   pages, in order, with `<lastmod>` equal to each page's `Last-Modified`;
 * - hosts with more ok pages than `sitemapMaxUrls` serve an index: its parts are followed at depth 1
 *   and their concatenation is the host's page list;
 * - guessing `/sitemap.xml` on every host finds the unlisted sitemaps too, and a host without one is
 *   an `http-error` 404 document, not an exception;
 * - no sitemap is requested twice, and a URL `beforeFetch` denies is never requested (a plain deny
 *   list, and a hook backed by each host's robots.txt, which disallows everything on a 500);
 * - HTML pages, redirect loops, gzip bombs, unknown hosts and missing index parts given as sitemaps
 *   end as document results while a good sitemap in the same run still yields all of its pages;
 * - maxDepth and maxTotalUrls hold.
 *
 * The web (seed 5): 40 hosts, 4,000 pages, 70 % of hosts with a sitemap, 60 % of those announced;
 * `sitemapMaxUrls` lowered to 40 so that the larger hosts serve sitemap indexes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CachingResolver } from '../../../src/dns/caching-resolver.js';
import { HostsMap } from '../../../src/dns/hosts-map.js';
import type { AddressPolicy } from '../../../src/fetch/address-guard.js';
import { UndiciFetcher } from '../../../src/fetch/undici-fetcher.js';
import { robotsFromFetch, type RobotsFetchResult, type RobotsPolicy } from '../../../src/robots/fetch-policy.js';
import type { SitemapUrl } from '../../../src/sitemap/sitemap-parser.js';
import {
  FetchPermission,
  SitemapSeeder,
  type BeforeFetch,
  type SitemapBatch,
  type SitemapDocumentResult,
  type SitemapSeed,
  type SitemapSeederOptions,
} from '../../../src/sitemap/sitemap-seeder.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { PageKind } from '../../../src/web/model.js';
import type { RequestRecord } from '../../../src/web/request-log.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import type { TruthHost } from '../../../src/web/truth/format.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';

const USER_AGENT = 'shoalbot/1.0 (+https://example.org/bot)';
const LOOPBACK: AddressPolicy = { allowLoopback: true, allowPrivate: false };
const MAX_URLS_PER_FILE = 40;
const WEB = {
  seed: 5,
  hosts: 40,
  pages: 4000,
  server: { addressCount: 4 },
  latency: { slowHostRate: 0 },
  traps: { hostRate: 0 },
  robots: {
    rulesRate: 0.5,
    emptyRate: 0.1,
    notFoundRate: 0.1,
    serverErrorRate: 0.1,
    unavailableRate: 0,
    redirectRate: 0.1,
    garbageRate: 0.05,
    sitemapRate: 0.7,
    sitemapListedRate: 0.6,
    sitemapMaxUrls: MAX_URLS_PER_FILE,
  },
  faults: { redirectRate: 0.02, redirectLoopRate: 0.01, bombRate: 0.01, bombBytes: 4 * 1024 * 1024 },
} satisfies WebConfigInput;

let web: TestWeb;
let truth: Truth;
let dir: string;
let resolver: CachingResolver;
let fetcher: UndiciFetcher;
/** Host name -> the URLs its sitemap lists, from the truth: its ok pages in id order. */
const expected = new Map<string, string[]>();
let hostsWithSitemap: TruthHost[];
let hostsWithout: TruthHost[];

const origin = (name: string): string => `http://${name}:${web.port}`;
const allowAll: BeforeFetch = () => Promise.resolve(FetchPermission.allowed);

/** Runs a seeder to the end; returns every batch and the requests the server saw meanwhile. */
async function run(seeds: readonly SitemapSeed[], beforeFetch: BeforeFetch = allowAll, options: SitemapSeederOptions = {}) {
  const from = web.log.count;
  const batches: SitemapBatch[] = [];
  for await (const batch of new SitemapSeeder({ fetcher, beforeFetch }, options).run(seeds)) batches.push(batch);
  const requests = web.log.entries().filter((r) => r.seq > from);
  return { batches, requests, documents: batches.map((b) => b.document) };
}

/** Page URLs yielded per host, in the order yielded. */
function urlsByHost(batches: readonly SitemapBatch[]): Map<string, SitemapUrl[]> {
  const out = new Map<string, SitemapUrl[]>();
  for (const b of batches) {
    for (const u of b.urls) {
      const host = new URL(u.url).hostname;
      const list = out.get(host) ?? [];
      list.push(u);
      out.set(host, list);
    }
  }
  return out;
}

/** Asserts that no path was requested twice from one host. */
function assertNoRepeats(requests: readonly RequestRecord[]): void {
  const seen = new Set<string>();
  for (const r of requests) {
    const key = `${r.host}${r.path}`;
    assert.ok(!seen.has(key), `${key} requested twice`);
    seen.add(key);
  }
}

/** A host's robots.txt as shoal reads it: fetched through the fetcher, redirects followed. */
async function robotsOf(name: string): Promise<RobotsPolicy> {
  let url = `${origin(name)}/robots.txt`;
  for (let hop = 0; hop <= 5; hop++) {
    const o = await fetcher.fetch({ url });
    let result: RobotsFetchResult;
    if (o.kind === 'ok') result = { kind: 'ok', status: o.response.status, body: o.body };
    else if (o.kind === 'http-error') result = { kind: 'http-error', status: o.response.status };
    else if (o.kind === 'redirect' && o.location !== null) {
      url = o.location;
      continue;
    } else result = { kind: 'unreachable' };
    return robotsFromFetch(result);
  }
  return robotsFromFetch({ kind: 'too-many-redirects' });
}

before(async () => {
  web = await startTestWeb(WEB);
  dir = mkdtempSync(join(tmpdir(), 'shoal-sitemap-'));
  await exportTruth(web.model, join(dir, 'truth'), { port: web.port });
  truth = await readTruth(join(dir, 'truth'));
  resolver = new CachingResolver({ hostsMap: HostsMap.fromHostsFile(readFileSync(web.hostsFile, 'utf8')), isSystemAllowed: false });
  fetcher = new UndiciFetcher({ userAgent: USER_AGENT, resolver, addressPolicy: LOOPBACK, maxDecodedBytes: 2 * 1024 * 1024 });
  const ok = truth.manifest.pageKinds.indexOf('ok');
  for (const h of truth.hosts) {
    if (h.sitemap === 'none') continue;
    const urls: string[] = [];
    for (let g = h.firstPage; g < h.firstPage + h.pageCount; g++)
      if (truth.kind[g] === ok) urls.push(`${origin(h.name)}${truth.paths.at(g)}`);
    expected.set(h.name, urls);
  }
  hostsWithSitemap = truth.hosts.filter((h) => h.sitemap !== 'none');
  hostsWithout = truth.hosts.filter((h) => h.sitemap === 'none');
});

after(async () => {
  await fetcher?.close();
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('sitemap seeds from the test web', () => {
  test('the web holds the cases this test is about', () => {
    const listed = hostsWithSitemap.filter((h) => h.sitemap === 'listed');
    assert.ok(listed.length >= 5, `${listed.length} listed sitemaps`);
    assert.ok(
      hostsWithSitemap.some((h) => h.sitemap === 'unlisted'),
      'an unlisted sitemap',
    );
    assert.ok(hostsWithout.length >= 3, 'hosts without a sitemap');
    assert.ok(
      listed.some((h) => (expected.get(h.name) as string[]).length > MAX_URLS_PER_FILE),
      'a listed sitemap that is an index',
    );
    assert.ok(
      listed.some((h) => (expected.get(h.name) as string[]).length <= MAX_URLS_PER_FILE),
      'a listed sitemap that is a urlset',
    );
    assert.ok(
      listed.some((h) => h.robots === 'redirect'),
      'a Sitemap line behind a robots.txt redirect',
    );
    assert.ok(
      truth.hosts.some((h) => h.robots === 'server-error' && h.sitemap !== 'none'),
      'a sitemap on a host whose robots.txt fails',
    );
  });

  test("robots.txt Sitemap lines lead to exactly the listed hosts' ok pages, indexes followed", async () => {
    const seeds: SitemapSeed[] = [];
    for (const h of truth.hosts) {
      const robots = await robotsOf(h.name);
      for (const url of robots.sitemaps) seeds.push({ url, source: { kind: 'robots', robotsUrl: `${origin(h.name)}/robots.txt` } });
    }
    const listed = hostsWithSitemap.filter((h) => h.sitemap === 'listed');
    assert.deepEqual(
      seeds.map((s) => new URL(s.url).hostname).sort(),
      listed.map((h) => h.name).sort(),
      'the announcing hosts are the listed ones',
    );

    const { batches, requests, documents } = await run(seeds);
    const got = urlsByHost(batches);
    assert.deepEqual([...got.keys()].sort(), listed.map((h) => h.name).sort());
    for (const h of listed) {
      assert.deepEqual(
        (got.get(h.name) ?? []).map((u) => u.url),
        expected.get(h.name),
        `${h.name}: the sitemap lists its ok pages, in id order`,
      );
    }
    for (const d of documents) assert.equal(d.kind, 'ok', JSON.stringify(d));

    // Indexes: one index document at depth 0, then ceil(n / 40) parts at depth 1 under it.
    let indexes = 0;
    for (const h of listed) {
      const n = (expected.get(h.name) as string[]).length;
      const mine = documents.filter((d) => new URL(d.url).hostname === h.name);
      const root = mine.find((d) => d.depth === 0) as Extract<SitemapDocumentResult, { kind: 'ok' }>;
      if (n <= MAX_URLS_PER_FILE) {
        assert.equal(root.format, 'urlset', h.name);
        assert.equal(mine.length, 1);
        continue;
      }
      indexes++;
      const parts = Math.ceil(n / MAX_URLS_PER_FILE);
      assert.equal(root.format, 'index', h.name);
      assert.equal(root.childCount, parts);
      const children = mine.filter((d) => d.depth === 1);
      assert.deepEqual(
        children.map((d) => d.url),
        Array.from({ length: parts }, (_, k) => `${origin(h.name)}/sitemap-${k + 1}.xml`),
      );
      assert.ok(children.every((d) => d.parent === root.url && d.source.kind === 'robots' && d.kind === 'ok' && d.format === 'urlset'));
    }
    assert.ok(indexes > 0);

    // The server saw one request per document, each a sitemap answer, none twice.
    assertNoRepeats(requests);
    assert.equal(requests.length, documents.length);
    assert.ok(requests.every((r) => r.outcome === 'sitemap' && r.status === 200 && r.userAgent === USER_AGENT));
  });

  test("lastmod is each page's Last-Modified date", async () => {
    const { batches } = await run(
      hostsWithSitemap.slice(0, 4).map((h) => ({ url: `${origin(h.name)}/sitemap.xml`, source: { kind: 'user' } })),
    );
    const sample = batches.flatMap((b) => b.urls.slice(0, 3));
    assert.ok(sample.length >= 8);
    for (const u of sample) {
      const o = await fetcher.fetch({ url: u.url, method: 'HEAD' });
      assert.equal(o.kind, 'ok', u.url);
      assert.ok(o.kind === 'ok');
      assert.equal(u.lastmodMs, Date.parse(o.response.headers['last-modified'] as string), u.url);
    }
  });

  test('guessing /sitemap.xml on every host: unlisted sitemaps found, 404s are documents', async () => {
    const seeds: SitemapSeed[] = truth.hosts.map((h) => ({ url: `${origin(h.name)}/sitemap.xml`, source: { kind: 'user' } }));
    const { batches, requests, documents } = await run(seeds);
    const got = urlsByHost(batches);
    for (const h of hostsWithSitemap)
      assert.deepEqual(
        (got.get(h.name) ?? []).map((u) => u.url),
        expected.get(h.name),
        h.name,
      );
    for (const h of hostsWithout) {
      assert.equal(got.has(h.name), false);
      const d = documents.find((x) => x.url === `${origin(h.name)}/sitemap.xml`);
      assert.ok(d?.kind === 'http-error' && d.status === 404, `${h.name}: ${JSON.stringify(d)}`);
    }
    assertNoRepeats(requests);
  });

  test('beforeFetch denials: a denied sitemap is never requested, the others are unaffected', async () => {
    const denied = new Set(hostsWithSitemap.filter((_, i) => i % 3 === 0).map((h) => h.name));
    const big = hostsWithSitemap.find(
      (h) => !denied.has(h.name) && (expected.get(h.name) as string[]).length > 2 * MAX_URLS_PER_FILE,
    ) as TruthHost;
    assert.ok(big !== undefined, 'a host with three or more index parts');
    const deniedPart = `${origin(big.name)}/sitemap-2.xml`;
    const asked: string[] = [];
    const hook: BeforeFetch = (url) => {
      asked.push(url);
      return Promise.resolve(denied.has(new URL(url).hostname) || url === deniedPart ? FetchPermission.denied : FetchPermission.allowed);
    };
    const seeds: SitemapSeed[] = hostsWithSitemap.map((h) => ({ url: `${origin(h.name)}/sitemap.xml`, source: { kind: 'user' } }));
    const { batches, requests, documents } = await run(seeds, hook);

    assert.deepEqual(asked.sort(), documents.map((d) => d.url).sort(), 'the hook is asked once for every document');
    for (const r of requests)
      assert.ok(!denied.has(r.host) && `${origin(r.host)}${r.path}` !== deniedPart, `${r.host}${r.path} was requested`);
    const deniedDocs = documents
      .filter((d) => d.kind === 'denied')
      .map((d) => d.url)
      .sort();
    assert.deepEqual(deniedDocs, [...[...denied].map((n) => `${origin(n)}/sitemap.xml`), deniedPart].sort());

    const got = urlsByHost(batches);
    for (const h of hostsWithSitemap) {
      const want = expected.get(h.name) as string[];
      if (denied.has(h.name)) assert.equal(got.has(h.name), false);
      else if (h.name === big.name) {
        // Everything but the second part's pages.
        const gone = new Set(want.slice(MAX_URLS_PER_FILE, 2 * MAX_URLS_PER_FILE));
        assert.deepEqual(
          (got.get(h.name) ?? []).map((u) => u.url),
          want.filter((u) => !gone.has(u)),
        );
      } else
        assert.deepEqual(
          (got.get(h.name) ?? []).map((u) => u.url),
          want,
          h.name,
        );
    }
  });

  test('a hook backed by robots.txt: a host whose robots.txt fails (500) is not asked for its sitemap', async () => {
    const policies = new Map<string, RobotsPolicy>();
    const hook: BeforeFetch = async (url) => {
      const u = new URL(url);
      let policy = policies.get(u.hostname);
      if (policy === undefined) {
        policy = await robotsOf(u.hostname);
        policies.set(u.hostname, policy);
      }
      return policy.forAgent(USER_AGENT).isAllowed(`${u.pathname}${u.search}`) ? FetchPermission.allowed : FetchPermission.denied;
    };
    const failing = hostsWithSitemap.filter((h) => h.robots === 'server-error');
    const seeds: SitemapSeed[] = hostsWithSitemap.map((h) => ({ url: `${origin(h.name)}/sitemap.xml`, source: { kind: 'user' } }));
    const { batches, requests, documents } = await run(seeds, hook);
    const got = urlsByHost(batches);
    for (const h of hostsWithSitemap) {
      if (h.robots === 'server-error') {
        assert.equal(documents.find((d) => d.url === `${origin(h.name)}/sitemap.xml`)?.kind, 'denied', h.name);
        assert.ok(
          requests.every((r) => r.host !== h.name || r.outcome === 'robots'),
          `${h.name}: only robots.txt was requested`,
        );
      } else {
        assert.deepEqual(
          (got.get(h.name) ?? []).map((u) => u.url),
          expected.get(h.name),
          h.name,
        );
      }
    }
    assert.ok(failing.length > 0);
  });

  test('error documents in the same run as a good sitemap: each a result, the good one complete', async () => {
    const model = web.model;
    const firstOf = (kind: number): number => {
      for (let g = 0; g < model.pageCount; g++) if (model.pageKind[g] === kind) return g;
      assert.fail(`no page of kind ${kind}`);
    };
    const good = hostsWithSitemap[0] as TruthHost;
    const without = hostsWithout[0] as TruthHost;
    const htmlPage = web.url(firstOf(PageKind.ok));
    const loop = web.url(firstOf(PageKind.redirectLoop));
    const bomb = web.url(firstOf(PageKind.bomb));
    const seeds: SitemapSeed[] = [
      { url: `${origin(without.name)}/sitemap.xml`, source: { kind: 'user' } },
      { url: htmlPage, source: { kind: 'user' } },
      { url: loop, source: { kind: 'user' } },
      { url: bomb, source: { kind: 'user' } },
      { url: `${origin(good.name)}/sitemap-999.xml`, source: { kind: 'user' } },
      { url: `http://no-such-host.test:${web.port}/sitemap.xml`, source: { kind: 'user' } },
      { url: 'not a url', source: { kind: 'user' } },
      { url: `${origin(good.name)}/sitemap.xml`, source: { kind: 'robots', robotsUrl: `${origin(good.name)}/robots.txt` } },
      { url: `${origin(good.name)}/sitemap.xml`, source: { kind: 'user' } },
    ];
    const { batches, requests, documents } = await run(seeds);
    const byUrl = (url: string): SitemapDocumentResult[] => documents.filter((d) => d.url === url);

    assert.ok(byUrl(`${origin(without.name)}/sitemap.xml`)[0]?.kind === 'http-error');
    const html = byUrl(htmlPage)[0];
    assert.ok(html?.kind === 'parse-problem' && html.problem === 'html', JSON.stringify(html));
    const bombDoc = byUrl(bomb)[0];
    assert.ok(bombDoc?.kind === 'too-large' && bombDoc.limit === 'decoded', JSON.stringify(bombDoc));
    assert.ok(byUrl(`${origin(good.name)}/sitemap-999.xml`)[0]?.kind === 'http-error');
    const dns = byUrl(`http://no-such-host.test:${web.port}/sitemap.xml`)[0];
    assert.ok(dns?.kind === 'fetch-error' && dns.fetchKind === 'dns-error', JSON.stringify(dns));
    const bad = byUrl('not a url')[0];
    assert.ok(bad?.kind === 'skipped' && bad.reason === 'invalid-url');
    // The loop: three hops, then a Location already fetched, not followed.
    const loopDocs = documents.filter((d) => d.kind === 'redirect' && (d.url === loop || d.url.includes('/loop/')));
    assert.ok(loopDocs.length >= 2 && loopDocs.length <= 6, JSON.stringify(loopDocs));
    const last = loopDocs[loopDocs.length - 1] as Extract<SitemapDocumentResult, { kind: 'redirect' }>;
    assert.equal(last.isFollowed, false);

    // The good sitemap, given twice, was fetched once (as robots-announced) and is complete.
    const goodDocs = byUrl(`${origin(good.name)}/sitemap.xml`);
    assert.equal(goodDocs.length, 1);
    assert.equal(goodDocs[0]?.source.kind, 'robots');
    assert.deepEqual(
      (urlsByHost(batches).get(good.name) ?? []).map((u) => u.url),
      expected.get(good.name),
    );
    assertNoRepeats(requests);
  });

  test('limits: maxDepth 0 does not follow an index; maxTotalUrls stops the run', async () => {
    const big = hostsWithSitemap.filter((h) => (expected.get(h.name) as string[]).length > MAX_URLS_PER_FILE);
    const seeds: SitemapSeed[] = big.map((h) => ({ url: `${origin(h.name)}/sitemap.xml`, source: { kind: 'user' } }));
    const shallow = await run(seeds, allowAll, { maxDepth: 0 });
    assert.equal(shallow.requests.length, big.length);
    for (const d of shallow.documents) {
      assert.ok(d.kind === 'ok' && d.format === 'index' && d.childCount === 0 && d.dropped.tooDeep > 0, JSON.stringify(d));
    }

    const first = expected.get((big[0] as TruthHost).name) as string[];
    const cap = MAX_URLS_PER_FILE - 5;
    const capped = await run(seeds, allowAll, { maxTotalUrls: cap });
    assert.deepEqual(
      capped.batches.flatMap((b) => b.urls.map((u) => u.url)),
      first.slice(0, cap),
    );
    const part1 = capped.documents.find((d) => d.url === `${origin((big[0] as TruthHost).name)}/sitemap-1.xml`);
    assert.ok(part1?.kind === 'ok' && part1.urlCount === cap && part1.dropped.overTotal === 5, JSON.stringify(part1));
    // The indexes, then the first part; every other part is skipped without a request.
    assert.equal(capped.requests.length, big.length + 1);
    const skipped = capped.documents.filter((d) => d.kind === 'skipped');
    assert.ok(skipped.length > 0 && skipped.every((d) => d.kind === 'skipped' && d.reason === 'max-total-urls'));
  });
});
