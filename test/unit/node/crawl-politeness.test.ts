/**
 * The node's schedule on a manual clock, against a scripted Web where every request takes 100 ms.
 * Politeness: minDelayMs 1000, k = 5 (so 5 × 100 ms stays under the minimum), back-off 10 s doubling.
 *
 *   a.test  10.0.0.1  robots.txt: Disallow /private, Crawl-delay 2 s
 *           /  -> /p1 /p2 /private/x        /p1: 503 Retry-After 30 s, then 200      /p2: 200
 *   b.test  10.0.0.2  robots.txt 404        /  -> /moved    /moved: 301 -> /target    /target -> /
 *   c.test  10.0.0.2  robots.txt 404        /  -> /r        /r: connection reset, always
 *
 * Expected requests (ms): both IPs start with a robots.txt at 0; c.test shares b.test's address, so
 * its robots.txt waits for b's to end (100). Each host then waits max(1000, 5 × 100, Crawl-delay)
 * after its last request ends: a.test 2000 ms (Crawl-delay), the others 1000 ms. a/p1's 503 holds
 * a.test for Retry-After (30 s); c/r's resets back off 10 s, then 20 s, and give up after 3 attempts.
 *
 *      0 a/robots.txt   0 b/robots.txt   100 c/robots.txt   1100 b/   1200 c/   2100 a/   2200 b/moved
 *   2300 c/r   3300 b/target   4200 a/p1 (503)   12400 c/r   32500 c/r   34300 a/p1   36400 a/p2
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/core/clock.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import type { CrawlEvents, CrawlProgress } from '../../../src/obs/events.js';
import { silentLog } from '../../../src/obs/log.js';
import type { CrawlLogRecord } from '../../../src/store/records.js';
import type { ResolveResult } from '../../../src/dns/resolver.js';
import { MemorySeenSet } from '../../../src/seen/memory-seen-set.js';
import { drive, FakeFetcher, FakeResolver, page, type Reply } from './fake-web.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-node-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

function route(url: string, attempt: number): Reply {
  switch (url) {
    case 'http://a.test/robots.txt':
      return { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'User-agent: *\nDisallow: /private\nCrawl-delay: 2\n' };
    case 'http://a.test/':
      return page('/p1', '/p2', '/private/x', '/p1');
    case 'http://a.test/p1':
      return attempt === 1 ? { status: 503, headers: { 'Retry-After': '30' } } : page();
    case 'http://a.test/p2':
      return page();
    case 'http://b.test/':
      return page('/moved');
    case 'http://b.test/moved':
      return { status: 301, headers: { Location: '/target' } };
    case 'http://b.test/target':
      return page('http://b.test/');
    case 'http://c.test/':
      return page('/r');
    case 'http://c.test/r':
      return { reset: true };
    default:
      return { status: 404 };
  }
}

interface Setup {
  readonly clock: ManualClock;
  readonly fetcher: FakeFetcher;
  readonly crawl: Crawl;
  readonly records: CrawlLogRecord[];
  readonly progress: CrawlProgress[];
}

function setup(limits: { maxPages?: number } = {}): Setup {
  const clock = new ManualClock();
  const fetcher = new FakeFetcher(clock, route, 100);
  const records: CrawlLogRecord[] = [];
  const progress: CrawlProgress[] = [];
  const events: CrawlEvents = { fetch: (r) => records.push(r), progress: (p) => progress.push(p) };
  const crawl = new Crawl(
    {
      seeds: { urls: ['http://a.test/', 'http://b.test/', 'http://c.test/'] },
      store: { outDir: join(root, `d${++dirs}`) },
      politeness: { minDelayMs: 1000, delayFactor: 5, backoffBaseMs: 10_000 },
      fetch: { maxAttempts: 3 },
      limits: { concurrency: 4, maxPages: limits.maxPages ?? null },
      frontier: { kind: 'memory' },
      progressIntervalMs: 0,
      parse: { workers: 0 }, // the manual clock drives the work: every step must be on this thread
    },
    {
      deps: { clock, log: silentLog, events },
      components: {
        fetcher,
        resolver: new FakeResolver({ 'a.test': '10.0.0.1', 'b.test': '10.0.0.2', 'c.test': '10.0.0.2' }),
        seen: new MemorySeenSet(),
        warc: null,
        sinks: {},
      },
    },
  );
  return { clock, fetcher, crawl, records, progress };
}

const short = (url: string): string => url.replace(/^http:\/\/([a-z])\.test/, '$1');

describe('the fetch slots on a manual clock', () => {
  test('request times follow min delay, k × duration, Crawl-delay, Retry-After, back-off and the per-IP limit', async () => {
    const { clock, fetcher, crawl, records, progress } = setup();
    const summary = await drive(clock, crawl.run());
    assert.deepEqual(
      fetcher.received.map((r) => `${r.atMs} ${short(r.url)}`),
      [
        '0 a/robots.txt',
        '0 b/robots.txt',
        '100 c/robots.txt',
        '1100 b/',
        '1200 c/',
        '2100 a/',
        '2200 b/moved',
        '2300 c/r',
        '3300 b/target',
        '4200 a/p1',
        '12400 c/r',
        '32500 c/r',
        '34300 a/p1',
        '36400 a/p2',
      ],
    );
    for (const [host, n] of fetcher.maxPerHost) assert.equal(n, 1, host);
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual(summary.outcomes, { ok: 6, redirect: 1, reset: 1, 'robots-denied': 1 });
    assert.equal(summary.pages, 7);
    assert.equal(summary.retries, 3);
    assert.equal(summary.requests, 14);
    assert.equal(summary.robotsRequests, 3);
    assert.equal(summary.elapsedMs, 36_500);
    assert.deepEqual(summary.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
    const byUrl = new Map(records.map((r) => [short(r.url), r]));
    assert.deepEqual([byUrl.get('a/p1')?.attempts, byUrl.get('c/r')?.attempts, byUrl.get('c/r')?.kind], [2, 3, 'reset']);
    assert.equal(byUrl.get('a/private/x')?.kind, 'robots-denied');
    assert.equal(byUrl.get('a/private/x')?.attempts, 0);
    assert.equal(byUrl.get('b/moved')?.redirectTo, 'http://b.test/target');
    assert.equal(byUrl.get('b/target')?.fromUrl, 'http://b.test/moved');
    assert.equal(byUrl.get('b/target')?.depth, 2);
    assert.equal(progress.at(-1)?.stopReason, 'exhausted');
  });

  test('stops after maxPages page fetches have started (robots.txt not counted)', async () => {
    const { clock, fetcher, crawl } = setup({ maxPages: 2 });
    const summary = await drive(clock, crawl.run());
    assert.deepEqual(
      fetcher.received.map((r) => `${r.atMs} ${short(r.url)}`),
      ['0 a/robots.txt', '0 b/robots.txt', '100 c/robots.txt', '1100 b/', '1200 c/'],
    );
    assert.equal(summary.stopReason, 'max-pages');
    assert.equal(summary.pages, 2);
    assert.ok(summary.frontierLeft.queued > 0);
  });

  test('an abort stops at once: the fetch in flight is abandoned, nothing else starts', async () => {
    const { clock, fetcher, crawl } = setup();
    const controller = new AbortController();
    void clock.sleepUntil(2150).then(() => controller.abort());
    const summary = await drive(clock, crawl.run(controller.signal));
    assert.equal(summary.stopReason, 'interrupted');
    assert.equal(fetcher.received.at(-1)?.url, 'http://a.test/');
    assert.equal(fetcher.pending, 0);
    assert.equal(summary.outcomes.ok, 2, 'b/ and c/ finished; a/ was abandoned');
    assert.equal(summary.elapsedMs, 2150);
  });

  test('a linked host whose name never resolves does not hold up the crawl of the page that links to it', async () => {
    // d.test/ links to /next and to x.test, whose lookup never answers. The page's lease completes
    // only once its links are queued, and /next is one of them: were queueing to wait for the
    // answer, d.test/next would never be fetched and the crawl would hang.
    class HangingResolver extends FakeResolver {
      override resolve(host: string): Promise<ResolveResult> {
        return host === 'x.test' ? new Promise(() => {}) : super.resolve(host);
      }
    }
    const clock = new ManualClock();
    const fetcher = new FakeFetcher(
      clock,
      (url) => {
        if (url === 'http://d.test/') return page('/next', 'http://x.test/');
        if (url === 'http://d.test/next') return page();
        return { status: 404 };
      },
      100,
    );
    const crawl = new Crawl(
      {
        seeds: { urls: ['http://d.test/'] },
        store: { outDir: join(root, `d${++dirs}`) },
        network: { dnsWaitMs: 250 },
        politeness: { minDelayMs: 1000 },
        limits: { concurrency: 2 },
        frontier: { kind: 'memory' },
        progressIntervalMs: 0,
        parse: { workers: 0 },
      },
      {
        deps: { clock, log: silentLog, events: { fetch: () => {}, progress: () => {} } },
        components: { fetcher, resolver: new HangingResolver({ 'd.test': '10.0.0.4' }), seen: new MemorySeenSet(), warc: null, sinks: {} },
      },
    );
    const summary = await drive(clock, crawl.run());
    // d/ ends at 1200; its links are queued 250 ms later (x.test without an address). d.test's
    // gap runs from the end of the fetch, not from the queueing: the next request to d.test is at
    // 2200. x.test is crawled too.
    assert.deepEqual(
      fetcher.received.map((r) => `${r.atMs} ${r.url.replace(/^http:\/\//, '')}`),
      ['0 d.test/robots.txt', '1100 d.test/', '1450 x.test/robots.txt', '2200 d.test/next', '2550 x.test/'],
    );
    assert.equal(summary.stopReason, 'exhausted');
    assert.equal(summary.outcomes.ok, 2);
  });

  test('a slot does not wait for a name server that is slow to answer: the URL goes back and other hosts are fetched', async () => {
    // One fetch slot. x.test's name is answered only at 5000 ms; the fetcher looks names up first,
    // as the real one does. The slot waits dnsWaitMs (250) for it, puts the URL back for 1 s and
    // serves d.test meanwhile; x.test is fetched once its answer is at hand.
    const clock = new ManualClock();
    const answers = new Map<string, ResolveResult>([['d.test', { kind: 'ok', ip: '10.0.0.4', family: 4, source: 'hosts-map' }]]);
    const xAnswer: ResolveResult = { kind: 'ok', ip: '10.0.0.8', family: 4, source: 'dns' };
    const xAnswered = clock.sleepUntil(5000).then(() => {
      answers.set('x.test', xAnswer);
    });
    const resolver = {
      resolve: (host: string): Promise<ResolveResult> => {
        const known = answers.get(host);
        return known !== undefined ? Promise.resolve(known) : xAnswered.then(() => xAnswer);
      },
      peek: (host: string): ResolveResult | null => answers.get(host) ?? null,
      close: () => {},
    };
    const fetcher = new FakeFetcher(
      clock,
      (url) => {
        if (url === 'http://d.test/') return page('/1', '/2', '/3');
        if (url === 'http://x.test/' || /^http:\/\/d\.test\/\d$/.test(url)) return page();
        return { status: 404 };
      },
      100,
      resolver,
    );
    const crawl = new Crawl(
      {
        seeds: { urls: ['http://x.test/', 'http://d.test/'] },
        store: { outDir: join(root, `d${++dirs}`) },
        network: { dnsWaitMs: 250 },
        politeness: { minDelayMs: 1000 },
        limits: { concurrency: 1 },
        frontier: { kind: 'memory' },
        progressIntervalMs: 0,
        parse: { workers: 0 },
      },
      {
        deps: { clock, log: silentLog, events: { fetch: () => {}, progress: () => {} } },
        components: { fetcher, resolver, seen: new MemorySeenSet(), warc: null, sinks: {} },
      },
    );
    const summary = await drive(clock, crawl.run());
    // The seeds are queued at 250 (admission waits dnsWaitMs for x.test's name too). Each time the
    // slot takes x.test before 5000 it spends 250 ms on the name and puts the URL back for 1 s; in
    // between it serves d.test (robots.txt, then every 1000 ms after the last request ended).
    assert.deepEqual(
      fetcher.received.map((r) => `${r.atMs} ${r.url.replace(/^http:\/\//, '')}`),
      [
        '500 d.test/robots.txt',
        '1750 d.test/',
        '3000 d.test/1',
        '4250 d.test/2',
        '5250 x.test/robots.txt',
        '5350 d.test/3',
        '6350 x.test/',
      ],
    );
    assert.equal(summary.outcomes.ok, 5);
    assert.equal(summary.retries, 0, 'waiting for a name is not a retry');
  });

  test('a body cut as too slow is not retried, does not back its host off, and costs it at most maxDelayMs', async () => {
    // e.test (robots.txt 404): /  -> /drip /p1 /p2. /drip trickles and is cut after 10 s (too-slow);
    // every other request takes 100 ms. minDelay 1000, k = 5, maxDelay 30 s (the default), back-off
    // 60 s so that one would show. After /drip ends at 12,200 the gap is min(5 × 10 s, 30 s) = 30 s:
    // /p1 at 42,200 (uncapped: 62,200; backed off: 72,200), then /p2 one minDelay after /p1.
    const clock = new ManualClock();
    const fetcher = new FakeFetcher(
      clock,
      (url) => {
        if (url === 'http://e.test/') return page('/drip', '/p1', '/p2');
        if (url === 'http://e.test/drip') return { tooSlow: true, durationMs: 10_000 };
        if (url === 'http://e.test/p1' || url === 'http://e.test/p2') return page();
        return { status: 404 };
      },
      100,
    );
    const records: CrawlLogRecord[] = [];
    const crawl = new Crawl(
      {
        seeds: { urls: ['http://e.test/'] },
        store: { outDir: join(root, `d${++dirs}`) },
        politeness: { minDelayMs: 1000, delayFactor: 5, backoffBaseMs: 60_000 },
        fetch: { maxAttempts: 3 },
        limits: { concurrency: 2 },
        frontier: { kind: 'memory' },
        progressIntervalMs: 0,
        parse: { workers: 0 },
      },
      {
        deps: { clock, log: silentLog, events: { fetch: (r) => records.push(r), progress: () => {} } },
        components: { fetcher, resolver: new FakeResolver({ 'e.test': '10.0.0.5' }), seen: new MemorySeenSet(), warc: null, sinks: {} },
      },
    );
    const summary = await drive(clock, crawl.run());
    assert.deepEqual(
      fetcher.received.map((r) => `${r.atMs} ${r.url.replace(/^http:\/\//, '')}`),
      ['0 e.test/robots.txt', '1100 e.test/', '2200 e.test/drip', '42200 e.test/p1', '43300 e.test/p2'],
    );
    assert.equal(summary.stopReason, 'exhausted');
    assert.deepEqual(summary.outcomes, { ok: 3, 'too-slow': 1 });
    assert.equal(summary.retries, 0);
    const drip = records.find((r) => r.url === 'http://e.test/drip');
    assert.equal(drip?.kind, 'too-slow');
    assert.equal(drip?.attempts, 1);
    assert.equal(drip?.status, 200);
    assert.equal(drip?.bytes, 0, 'nothing of a cut body is kept');
    assert.equal(drip?.reason, '10 B in 10000 ms < 1000 B/s over 10000 ms; 10 B of body');
  });

  test('a host that refuses connections is shown at once and given up after 3 refusals, about 30 s, its URLs ended without a request', async () => {
    // r.test refuses every connection; a.test links to two of its pages. robots.txt of r.test is tried
    // at 0, then after the back-off (10 s, 20 s): at the third refusal the host is given up, and its
    // three URLs end as connect-error at once. The first progress event already names it.
    const clock = new ManualClock();
    const fetcher = new FakeFetcher(clock, (url) => {
      if (url.startsWith('http://r.test/')) return { refused: true };
      if (url === 'http://a.test/') return page('http://r.test/x', 'http://r.test/y');
      return { status: 404 };
    });
    const records: CrawlLogRecord[] = [];
    const progress: CrawlProgress[] = [];
    const crawl = new Crawl(
      {
        seeds: { urls: ['http://r.test/', 'http://a.test/'] },
        store: { outDir: join(root, `d${++dirs}`) },
        limits: { concurrency: 2 },
        frontier: { kind: 'memory' },
        progressIntervalMs: 1000,
        parse: { workers: 0 },
      },
      {
        deps: { clock, log: silentLog, events: { fetch: (r) => records.push(r), progress: (p) => progress.push(p) } },
        components: {
          fetcher,
          resolver: new FakeResolver({ 'r.test': '10.0.0.8', 'a.test': '10.0.0.1' }),
          seen: new MemorySeenSet(),
          warc: null,
          sinks: {},
        },
      },
    );
    const summary = await drive(clock, crawl.run());
    assert.deepEqual(
      fetcher.received.filter((r) => r.url.startsWith('http://r.test/')).map((r) => `${r.atMs} ${short(r.url)}`),
      ['0 r/robots.txt', '10100 r/robots.txt', '30200 r/robots.txt'],
      'robots.txt three times, the back-off between; no page request',
    );
    assert.deepEqual(progress[0]?.unreachable, { failing: 1, givenUp: 0, hosts: ['r.test: connection refused'] });
    const ended = records.filter((r) => r.url.startsWith('http://r.test/'));
    assert.deepEqual(ended.map((r) => [short(r.url), r.kind, r.attempts]).sort(), [
      ['r/', 'connect-error', 0],
      ['r/x', 'connect-error', 0],
      ['r/y', 'connect-error', 0],
    ]);
    assert.match(ended[0]?.reason ?? '', /connection refused \(ECONNREFUSED\), 3 times in a row/);
    assert.equal(summary.stopReason, 'exhausted');
    assert.equal(summary.elapsedMs, 31_300, "r.test given up at 30.3 s; a.test's own robots.txt, page and links end a second later");
    assert.deepEqual(summary.unreachableHosts, [
      { host: 'r.test', kind: 'connect-error', code: 'ECONNREFUSED', failures: 3, isGivenUp: true },
    ]);
  });

  test('a name that is answered slowly and never kept (TTL 0) is still fetched', async () => {
    // Every lookup of y.test takes 400 ms and nothing is at hand afterwards; a slot waits 250 ms.
    // The first lease goes back; the answer that came meanwhile lets the next one through.
    const clock = new ManualClock();
    const resolver = {
      resolve: (): Promise<ResolveResult> =>
        clock.sleepUntil(clock.nowMs() + 400).then(() => ({ kind: 'ok', ip: '10.0.0.7', family: 4, source: 'dns' })),
      peek: (): ResolveResult | null => null,
      close: () => {},
    };
    const fetcher = new FakeFetcher(clock, (url) => (url === 'http://y.test/' ? page() : { status: 404 }), 100, resolver);
    const crawl = new Crawl(
      {
        seeds: { urls: ['http://y.test/'] },
        store: { outDir: join(root, `d${++dirs}`) },
        network: { dnsWaitMs: 250 },
        politeness: { minDelayMs: 1000 },
        limits: { concurrency: 1 },
        frontier: { kind: 'memory' },
        progressIntervalMs: 0,
        parse: { workers: 0 },
      },
      {
        deps: { clock, log: silentLog, events: { fetch: () => {}, progress: () => {} } },
        components: { fetcher, resolver, seen: new MemorySeenSet(), warc: null, sinks: {} },
      },
    );
    // Were the host to go back to its queue forever, the crawl would never end: it is stopped at 60 s.
    const controller = new AbortController();
    void clock.sleepUntil(60_000).then(() => controller.abort());
    const summary = await drive(clock, crawl.run(controller.signal));
    assert.deepEqual(
      fetcher.received.map((r) => r.url),
      ['http://y.test/robots.txt', 'http://y.test/'],
    );
    assert.equal(summary.outcomes.ok, 1);
    assert.equal(summary.stopReason, 'exhausted');
  });
});
