/**
 * One node crawls a small test web to exhaustion over real sockets on loopback, and is judged by the
 * test web's own truth and request log, not by what the crawler says about itself:
 *
 * - politeness: at most one request in flight per host and per IP address at any time (the
 *   server's counters), every gap between two requests to a host at least `minDelayMs`, and at
 *   least the Crawl-delay of hosts whose robots.txt has one;
 * - robots.txt: no request for a page the host's rules disallow (RFC 9309 longest match, a 5xx
 *   robots.txt disallows everything), robots.txt fetched before any page of its host;
 * - coverage: every page a polite crawler reaches from the seeds was fetched (closure over the model's
 *   links, and the truth's `reach` column, minus what only exact duplicates lead to);
 * - faults: every page kind ends with the outcome it should (404, 410, 500 after its retries, 503 and
 *   resets retried into 200, redirects and loops recorded, gzip bombs refused, hangs survived);
 * - WARC: warcio reads every file; one response (or revisit) record per URL that got a response;
 *   byte-identical mirror pages written as revisit records pointing at the original capture; a
 *   CDXJ line per response and revisit;
 * - the crawl log has one line per URL pointing at its WARC record, the page metadata one line per
 *   page, the link graph every link of every parsed page with its anchor text and flags;
 * - a second run on the same directory fetches nothing again and leaves the WARC files readable.
 *
 * The web (seed 3) has 12 hosts on 4 addresses, two of them mirrors, and every robots.txt kind but
 * `empty`; fault rates are raised so that each page kind occurs. Hangs close after 300 ms (before the
 * crawler's own timeouts): the server counts a hung request as in flight until it closes it, so a
 * client that gave up earlier would look, in the server's log, like it overlapped its next request.
 */
import assert from 'node:assert/strict';
import { channel } from 'node:diagnostics_channel';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { WARCParser } from 'warcio';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { CrawlChannel } from '../../../src/obs/events.js';
import type { CrawlLogRecord } from '../../../src/store/records.js';
import type { WebConfigInput } from '../../../src/web/config.js';
import { LinkKind, pageLinks } from '../../../src/web/links.js';
import { PageFlag, PageKind, redirectInfo, servesContent, type WebModel } from '../../../src/web/model.js';
import type { RequestRecord } from '../../../src/web/request-log.js';
import { startTestWeb, type TestWeb } from '../../../src/web/start.js';
import { exportTruth } from '../../../src/web/truth/export.js';
import { readCrawlLog, type CrawlLogEntry } from '../../../src/store/crawl-log.js';
import { readLinkGraph } from '../../../src/store/link-graph-reader.js';
import { LinkFlag } from '../../../src/store/link-graph.js';
import { readPageMetadata, type PageMetadata } from '../../../src/store/page-metadata.js';
import { Reach } from '../../../src/web/truth/format.js';
import { readTruth, type Truth } from '../../../src/web/truth/read.js';

const MIN_DELAY_MS = 20;
const CRAWL_DELAY_S = 0.1;
const USER_AGENT = 'shoalbot/1.0 (+https://example.org/bot)';
const WEB = {
  seed: 3,
  hosts: 12,
  pages: 600,
  seeds: 3,
  server: { addressCount: 4 },
  traps: { hostRate: 0 },
  robots: {
    rulesRate: 0.4,
    emptyRate: 0.1,
    notFoundRate: 0.1,
    serverErrorRate: 0.1,
    unavailableRate: 0.1,
    redirectRate: 0.1,
    garbageRate: 0.05,
    crawlDelayRate: 0.5,
    crawlDelaySeconds: CRAWL_DELAY_S,
  },
  duplicates: { mirrorHostRate: 0.2 },
  faults: {
    redirectRate: 0.03,
    redirectLoopRate: 0.01,
    notFoundRate: 0.02,
    goneRate: 0.01,
    serverErrorRate: 0.01,
    unavailableRate: 0.02,
    retryAfterSeconds: 1,
    resetRate: 0.02,
    hangRate: 0.01,
    hangMs: 300,
    oversizedRate: 0.01,
    oversizedBytes: 2 * 1024 * 1024,
    bombRate: 0.01,
  },
} satisfies WebConfigInput;

let web: TestWeb;
let model: WebModel;
let truth: Truth;
let dir: string;
let summary: CrawlSummary;
const records: CrawlLogRecord[] = [];
let requests: RequestRecord[];
/** `host/path` (as requested, port left out) -> page id. */
const pageByKey = new Map<string, number>();

const keyOf = (host: string, pathAndQuery: string): string => `${host}${pathAndQuery}`;
const keyOfUrl = (url: string): string => {
  const u = new URL(url);
  return keyOf(u.hostname, `${u.pathname}${u.search}`);
};
const pageOfUrl = (url: string): number => pageByKey.get(keyOfUrl(url)) ?? -1;
const isRobotsPath = (path: string): boolean => path === '/robots.txt' || path === '/robots-moved.txt';

/** The Crawl-delay the host's robots.txt states, in ms (only files with rules carry the line). */
function crawlDelayOf(host: string): number {
  const h = model.hostByName(host);
  const hasRules = h !== undefined && (h.robots === 'rules' || h.robots === 'unavailable' || h.robots === 'redirect');
  return hasRules && h.crawlDelaySeconds !== null ? h.crawlDelaySeconds * 1000 : 0;
}

function crawlConfig(outDir: string, nodeId: string) {
  return {
    nodeId,
    seeds: { urls: [...web.seeds] },
    store: { outDir },
    network: { hostsFile: web.hostsFile, allowLoopback: true, isSystemDnsAllowed: false },
    politeness: { minDelayMs: MIN_DELAY_MS, delayFactor: 2, backoffBaseMs: 100, backoffMaxMs: 1000 },
    robots: { retryMs: 200, maxAttempts: 3 },
    fetch: { userAgent: USER_AGENT, bodyTimeoutMs: 5000, firstByteTimeoutMs: 5000, maxAttempts: 3 },
    limits: { concurrency: 8 },
    progressIntervalMs: 0,
  };
}

async function readWarc(path: string): Promise<Array<{ type: string; headers: Map<string, string> }>> {
  const out: Array<{ type: string; headers: Map<string, string> }> = [];
  for await (const rec of new WARCParser(createReadStream(path))) {
    await rec.readFully(false);
    const headers = new Map<string, string>();
    for (const [k, v] of rec.warcHeaders.headers as Iterable<[string, string]>) headers.set(k.toLowerCase(), v);
    out.push({ type: rec.warcType ?? '', headers });
  }
  return out;
}

before(async () => {
  web = await startTestWeb(WEB);
  model = web.model;
  for (let g = 0; g < model.pageCount; g++) pageByKey.set(keyOf(model.hostOf(g).name, model.path(g)), g);
  dir = mkdtempSync(join(tmpdir(), 'shoal-crawl-'));
  await exportTruth(model, join(dir, 'truth'), { port: web.port });
  truth = await readTruth(join(dir, 'truth'));
  const onFetch = (m: unknown): void => {
    const r = m as CrawlLogRecord;
    if (r.node === 'first') records.push(r);
  };
  channel(CrawlChannel.fetch).subscribe(onFetch);
  try {
    summary = await new Crawl(crawlConfig(join(dir, 'out'), 'first')).run();
  } finally {
    channel(CrawlChannel.fetch).unsubscribe(onFetch);
  }
  requests = web.log
    .entries()
    .slice()
    .sort((a, b) => a.seq - b.seq);
});

after(async () => {
  await web?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('one node crawling the test web to exhaustion', () => {
  test('the web holds the cases this test is about', () => {
    const robots = new Set(model.hosts.map((h) => h.robots));
    for (const kind of ['rules', 'server-error', 'unavailable', 'redirect', 'garbage', 'not-found'])
      assert.ok(robots.has(kind as never), `a host with robots kind ${kind}`);
    assert.ok(
      model.hosts.some((h) => crawlDelayOf(h.name) > 0),
      'a host with a Crawl-delay',
    );
    assert.ok(
      model.hosts.some((h) => h.mirrorOf >= 0),
      'a mirror host',
    );
    assert.equal(new Set(model.hosts.map((h) => h.ip)).size, 4);
  });

  test('ends with the frontier exhausted, every URL accounted for once', () => {
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual(summary.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
    assert.equal(records.length, summary.urls);
    assert.equal(new Set(records.map((r) => r.url)).size, records.length, 'one final record per URL');
    assert.equal(summary.seenUrls, summary.urls, 'every URL seen was crawled or decided about');
    assert.ok(summary.pages > 400, `${summary.pages} pages`);
    assert.ok(requests.every((r) => r.userAgent === USER_AGENT && r.method === 'GET'));
  });

  test('never more than one request in flight per host and per IP address', () => {
    const { perHost, perIp } = web.log.maxConcurrency();
    assert.ok(perHost.size >= 10);
    for (const [host, n] of perHost) assert.equal(n, 1, `host ${host}`);
    for (const [ip, n] of perIp) assert.equal(n, 1, `ip ${ip}`);
  });

  test('waits at least minDelayMs between requests to a host, and the Crawl-delay where robots.txt asks', () => {
    const last = new Map<string, number>();
    let gaps = 0;
    for (const r of requests) {
      const prev = last.get(r.host);
      last.set(r.host, r.startMs);
      if (prev === undefined) continue;
      gaps++;
      const crawlDelayMs = crawlDelayOf(r.host);
      assert.ok(r.startMs - prev >= MIN_DELAY_MS, `${r.host}: ${r.startMs - prev} ms before ${r.path}`);
      // The first gap follows robots.txt itself, whose Crawl-delay is known from then on.
      assert.ok(r.startMs - prev >= crawlDelayMs, `${r.host}: ${r.startMs - prev} ms < Crawl-delay before ${r.path}`);
    }
    assert.ok(gaps > 400);
  });

  test('obeys robots.txt: fetched first, no disallowed page requested, a 5xx robots.txt disallows all', () => {
    const robotsDone = new Set<string>();
    for (const r of requests) {
      if (isRobotsPath(r.path)) {
        if (r.status >= 200 && r.status < 500) robotsDone.add(r.host);
        continue;
      }
      assert.ok(robotsDone.has(r.host), `${r.host}${r.path} before its robots.txt was read`);
      const g = pageByKey.get(keyOf(r.host, r.path));
      if (g !== undefined) assert.ok(!model.isDisallowed(g), `disallowed page requested: ${r.host}${r.path}`);
    }
    for (const h of model.hosts.filter((x) => x.robots === 'server-error')) {
      const sent = requests.filter((r) => r.host === h.name);
      if (sent.length === 0) continue;
      assert.ok(
        sent.every((r) => r.path === '/robots.txt'),
        `${h.name}: only robots.txt`,
      );
      assert.equal(sent.length, 3, `${h.name}: robots.maxAttempts tries`);
    }
    const denied = records.filter((r) => r.kind === 'robots-denied');
    assert.ok(denied.length > 0);
    for (const r of denied) {
      const g = pageOfUrl(r.url);
      if (g >= 0) assert.ok(model.isDisallowed(g), `${r.url} denied but allowed by the model`);
    }
    assert.ok(
      records.some((r) => r.kind === 'robots-unavailable'),
      'URLs of a host whose robots.txt always fails are given up',
    );
  });

  test('every fault kind ends with the outcome it should, and the crawl goes on', () => {
    const byPage = new Map<number, CrawlLogRecord>();
    for (const r of records) {
      const g = pageOfUrl(r.url);
      if (g >= 0) byPage.set(g, r);
    }
    const expected: Record<number, (r: CrawlLogRecord) => boolean> = {
      [PageKind.ok]: (r) => r.kind === 'ok',
      [PageKind.notFound]: (r) => r.kind === 'http-error' && r.status === 404 && r.attempts === 1,
      [PageKind.gone]: (r) => r.kind === 'http-error' && r.status === 410,
      [PageKind.serverError]: (r) => r.kind === 'http-error' && r.status === 500 && r.attempts === 3,
      [PageKind.unavailable]: (r) => r.kind === 'ok' && r.attempts === 3,
      [PageKind.reset]: (r) => r.kind === 'ok' && r.attempts === 2,
      [PageKind.hang]: (r) => (r.kind === 'reset' || r.kind === 'timeout' || r.kind === 'protocol-error') && r.attempts === 3,
      [PageKind.oversized]: (r) => r.kind === 'ok',
      [PageKind.bomb]: (r) => r.kind === 'too-large',
      [PageKind.redirect]: (r) => r.kind === 'redirect' && r.redirectTo !== null,
      [PageKind.redirectLoop]: (r) => r.kind === 'redirect',
      [PageKind.nearDuplicate]: (r) => r.kind === 'ok',
    };
    const met = new Set<number>();
    for (const [g, r] of byPage) {
      if (r.kind === 'robots-denied' || r.kind === 'robots-unavailable') continue;
      const kind = model.pageKind[g] as number;
      met.add(kind);
      assert.ok(expected[kind]?.(r), `page ${g} (${Object.keys(PageKind)[kind]}): ${JSON.stringify(r)}`);
    }
    // Every kind this web draws (drips are off in it).
    for (const kind of Object.keys(expected).map(Number))
      assert.ok(met.has(kind), `the crawl met a page of kind ${Object.keys(PageKind)[kind]}`);
  });

  test('fetches every page reachable through followable links (closure over the model, and the truth)', () => {
    const requested = new Set<number>();
    for (const r of requests) {
      const g = pageByKey.get(keyOf(r.host, r.path));
      if (g !== undefined) requested.add(g);
    }
    for (const s of web.seeds) assert.ok(requested.has(pageOfUrl(s)), `seed ${s}`);
    const duplicates = new Set(records.filter((r) => r.isDuplicate).map((r) => pageOfUrl(r.url)));
    let checked = 0;
    for (const r of records) {
      const g = pageOfUrl(r.url);
      if (g < 0) continue;
      if (r.kind === 'redirect' && model.pageKind[g] === PageKind.redirect) {
        const target = redirectInfo(model, g).target;
        if (!model.isDisallowed(target)) assert.ok(requested.has(target), `redirect ${r.url} -> page ${target} not followed`);
        continue;
      }
      if (r.kind !== 'ok' || duplicates.has(g) || ((model.pageFlags[g] as number) & PageFlag.nofollow) !== 0) continue;
      assert.ok(servesContent(model.pageKind[g] as number));
      for (const link of pageLinks(model, g)) {
        if (link.isNofollow || link.kind === LinkKind.redirect || model.isDisallowed(link.target)) continue;
        checked++;
        assert.ok(requested.has(link.target), `${r.url} links to ${model.url(link.target, web.port)}, never requested`);
      }
    }
    assert.ok(checked > 1000, `${checked} links checked`);
    // The truth's polite crawl follows the links of duplicates too; what it reaches beyond this crawl
    // can only be on mirror hosts and the hosts they copy.
    const mirrorHosts = new Set<number>();
    for (const h of model.hosts) if (h.mirrorOf >= 0) mirrorHosts.add(h.index).add(h.mirrorOf);
    let reached = 0;
    for (let g = 0; g < model.pageCount; g++) {
      if (truth.reach[g] !== Reach.polite) continue;
      reached++;
      if (!requested.has(g))
        assert.ok(mirrorHosts.has(model.pageHost[g] as number), `page ${g} (reach 2) not fetched: ${model.url(g, web.port)}`);
    }
    assert.ok(reached > 400);
  });

  test('writes WARC files warcio reads: one response per page, revisits for identical mirror pages, a CDXJ line each', async () => {
    const warcDir = join(dir, 'out', 'warc');
    const files = readdirSync(warcDir)
      .filter((n) => n.endsWith('.warc.gz'))
      .sort();
    assert.deepEqual(files, [...summary.warcFiles]);
    const all = (await Promise.all(files.map((f) => readWarc(join(warcDir, f))))).flat();
    const captures = all.filter(
      (r) => (r.type === 'response' || r.type === 'revisit') && !isRobotsPath(new URL(r.headers.get('warc-target-uri') ?? '').pathname),
    );
    const byUri = new Map<string, number>();
    for (const c of captures)
      byUri.set(c.headers.get('warc-target-uri') ?? '', (byUri.get(c.headers.get('warc-target-uri') ?? '') ?? 0) + 1);
    const withResponse = records.filter((r) => r.kind === 'ok' || r.kind === 'redirect' || r.kind === 'http-error');
    assert.equal(captures.length, withResponse.length);
    for (const r of withResponse) assert.equal(byUri.get(r.url), 1, `one capture of ${r.url}`);
    assert.equal(all.filter((r) => r.type === 'request').length, all.filter((r) => r.type === 'response' || r.type === 'revisit').length);

    const revisits = captures.filter((c) => c.type === 'revisit');
    assert.equal(revisits.length, summary.revisits);
    assert.ok(revisits.length > 0, 'some mirror page was written as a revisit');
    for (const v of revisits) {
      const g = pageOfUrl(v.headers.get('warc-target-uri') ?? '');
      const original = pageOfUrl(v.headers.get('warc-refers-to-target-uri') ?? '');
      assert.ok(g >= 0 && original >= 0 && g !== original);
      assert.equal(model.contentId(g), model.contentId(original), 'a revisit refers to a page with the same content');
    }
    // Two 2xx responses never share a payload: the second would have been a revisit.
    const digests = new Set<string>();
    for (const c of captures.filter((x) => x.type === 'response')) {
      const uri = c.headers.get('warc-target-uri') ?? '';
      if (records.find((r) => r.url === uri)?.kind !== 'ok') continue;
      const d = c.headers.get('warc-payload-digest') ?? '';
      assert.ok(!digests.has(d), `${uri} repeats a payload without a revisit record`);
      digests.add(d);
    }
    const index = readFileSync(join(warcDir, 'index.cdxj'), 'utf8').trim().split('\n');
    assert.equal(index.length, all.filter((r) => r.type === 'response' || r.type === 'revisit').length);
  });

  test('keeps a crawl log line per URL, a metadata line per page and the link graph with anchor texts', async () => {
    const out = join(dir, 'out');
    const log: CrawlLogEntry[] = [];
    for await (const e of readCrawlLog(join(out, 'crawl-log.jsonl'))) log.push(e);
    assert.deepEqual(log.map((e) => `${e.url} ${e.outcome}`).sort(), records.map((r) => `${r.url} ${r.kind}`).sort());
    const indexed = new Set(
      readFileSync(join(out, 'warc', 'index.cdxj'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => {
          const j = JSON.parse(l.slice(l.indexOf('{'))) as { filename: string; offset: string };
          return `${j.filename}@${j.offset}`;
        }),
    );
    for (const e of log) {
      if (e.outcome === 'ok' || e.outcome === 'redirect' || e.outcome === 'http-error')
        assert.ok(e.warc !== null && indexed.has(`${e.warc.file}@${e.warc.offset}`), `${e.url}: ${JSON.stringify(e.warc)}`);
      if (e.outcome === 'ok') assert.match(e.digest ?? '', /^sha1:[A-Z2-7]{32}$/);
    }
    assert.ok(log.some((e) => e.outcome === 'ok' && e.simhash !== null && e.lang !== null));
    const pages: PageMetadata[] = [];
    for await (const p of readPageMetadata(join(out, 'pages.jsonl'))) pages.push(p);
    assert.equal(pages.length, records.filter((r) => r.kind === 'ok').length);
    const graph = await readLinkGraph(join(out, 'links'));
    try {
      const parsed = pages.filter((p) => p.textDigest !== null);
      assert.ok(parsed.length > 400);
      for (const p of parsed) {
        const id = p.urlId as number;
        assert.equal(graph.urls[id], p.url);
        const edges = (graph.csr.offsets[id + 1] as number) - (graph.csr.offsets[id] as number);
        assert.ok(edges >= p.linkCounts.unique, `${p.url}: ${edges} edges for ${JSON.stringify(p.linkCounts)}`);
      }
      let redirects = 0;
      let anchored = 0;
      for (let e = 0; e < graph.flags.length; e++) {
        if (((graph.flags[e] as number) & LinkFlag.redirect) !== 0) redirects++;
        else if (anchored < 50 && graph.anchorOf(e) !== '') anchored++;
      }
      assert.equal(redirects, records.filter((r) => r.kind === 'redirect' && r.redirectTo !== null).length);
      assert.equal(anchored, 50);
    } finally {
      graph.close();
    }
  });

  test('a second run on the same directory fetches nothing again and keeps the WARC files whole', async () => {
    const before = web.log.count;
    const again = await new Crawl(crawlConfig(join(dir, 'out'), 'first')).run();
    assert.equal(again.stopReason, 'exhausted');
    assert.equal(again.pages, 0);
    assert.equal(again.links.seenBefore, web.seeds.length);
    assert.equal(web.log.count, before, 'no request at all');
    assert.equal(again.seenUrls, summary.seenUrls);
    const warcDir = join(dir, 'out', 'warc');
    for (const f of readdirSync(warcDir).filter((n) => n.endsWith('.warc.gz'))) assert.ok((await readWarc(join(warcDir, f))).length > 0);
  });
});
