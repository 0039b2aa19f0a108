/**
 * The node's robots.txt cache on a manual clock: what each fetch result means for the host (RFC 9309
 * §2.3.1), retries of a failing robots.txt and giving up, redirects followed with the politeness gap,
 * Crawl-delay, expiry and the bounded size.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FetchOutcome, Fetcher } from '../../../../src/fetch/fetcher.js';
import { ManualClock } from '../../../../src/core/clock.js';
import type { CrawlConfig } from '../../../../src/config/crawl-config.js';
import { RobotsCache, type RobotsFailure, type RobotsVerdict } from '../../../../src/node/stages/robots-cache.js';
import { drive, FakeFetcher, type Reply } from '../fake-web.js';

const CONFIG: CrawlConfig['robots'] = {
  maxAgeMs: 86_400_000,
  retryMs: 60_000,
  maxAttempts: 3,
  maxBytes: 512_000,
  maxRedirects: 5,
  cacheEntries: 100,
  cacheBytes: 64 * 2 ** 20,
};
const ORIGIN = 'http://a.test';

function cache(route: (url: string, attempt: number) => Reply, config: Partial<CrawlConfig['robots']> = {}, fetcher?: Fetcher) {
  const clock = new ManualClock();
  const fake = new FakeFetcher(clock, route, 100);
  const requested: string[] = [];
  const failures: RobotsFailure[] = [];
  const robots = new RobotsCache({
    config: { ...CONFIG, ...config },
    userAgent: 'shoalbot/1.0 (+https://example.org/bot)',
    maxCrawlDelayMs: 5_000,
    maxRetryAfterMs: 600_000,
    fetcher: fetcher ?? fake,
    clock,
    hopGapMs: () => 1000,
    onRequest: async (url) => {
      requested.push(url);
    },
    onFailure: (f) => failures.push(f),
  });
  const fetch = (origin = ORIGIN) => drive(clock, robots.fetch(origin, new AbortController().signal));
  return { clock, fake, robots, requested, failures, fetch };
}

function kind(v: RobotsVerdict): string {
  if (v.kind === 'rules') return `rules delay=${v.crawlDelayMs}`;
  if (v.kind === 'wait') return `wait until ${v.untilMs}`;
  if (v.kind === 'given-up') return `given-up ${v.reason}`;
  return v.kind;
}

describe('RobotsCache', () => {
  test('fetches once, applies our group, caps Crawl-delay, and refreshes after maxAgeMs', async () => {
    const { clock, robots, requested, fetch } = cache(() => ({
      status: 200,
      body: 'User-agent: shoalbot\nDisallow: /x\nCrawl-delay: 9\n\nUser-agent: *\nDisallow: /\n',
    }));
    assert.equal(kind(robots.verdict(ORIGIN, 0)), 'fetch');
    const report = await fetch();
    assert.deepEqual(report, { isAborted: false, durationMs: 100, ip: '10.0.0.1', connectionFailure: null, isWithoutRequest: false });
    const v = robots.verdict(ORIGIN, clock.nowMs());
    assert.equal(kind(v), 'rules delay=5000');
    assert.ok(v.kind === 'rules' && v.rules.isAllowed('/y') && !v.rules.isAllowed('/x/1'));
    assert.ok(robots.peekRules(ORIGIN, 100) !== null);
    assert.equal(kind(robots.verdict(ORIGIN, 100 + CONFIG.maxAgeMs)), 'fetch');
    assert.deepEqual(requested, ['http://a.test/robots.txt']);
  });

  test('a 404 allows everything; a 503 disallows until Retry-After, then the rules apply', async () => {
    const notFound = cache(() => ({ status: 404 }));
    await notFound.fetch();
    const v = notFound.robots.verdict(ORIGIN, 100);
    assert.ok(v.kind === 'rules' && v.rules.isAllowed('/anything'));

    const flaky = cache((_, attempt) =>
      attempt <= 2 ? { status: 503, headers: { 'Retry-After': '5' } } : { status: 200, body: 'User-agent: *\nDisallow: /no\n' },
    );
    await flaky.fetch();
    assert.equal(kind(flaky.robots.verdict(ORIGIN, 100)), 'wait until 5100');
    assert.equal(flaky.robots.peekRules(ORIGIN, 100), null);
    await flaky.clock.advanceTo(5100);
    assert.equal(kind(flaky.robots.verdict(ORIGIN, 5100)), 'fetch');
    await flaky.fetch();
    assert.equal(kind(flaky.robots.verdict(ORIGIN, 5200)), 'wait until 10200');
    await flaky.clock.advanceTo(10_200);
    await flaky.fetch();
    assert.equal(kind(flaky.robots.verdict(ORIGIN, 10_300)), 'rules delay=0');
  });

  test('gives up after maxAttempts failures in a row, until maxAgeMs has passed', async () => {
    const { clock, robots, fetch, requested } = cache(() => ({ status: 500 }));
    for (let i = 0; i < 3; i++) {
      await fetch();
      const v = robots.verdict(ORIGIN, clock.nowMs());
      if (i < 2) {
        assert.equal(kind(v), `wait until ${clock.nowMs() + CONFIG.retryMs}`);
        await clock.advanceTo(clock.nowMs() + CONFIG.retryMs);
      } else {
        assert.equal(kind(v), 'given-up robots-unavailable');
      }
    }
    assert.equal(requested.length, 3);
    assert.equal(kind(robots.verdict(ORIGIN, clock.nowMs() + CONFIG.maxAgeMs - 1)), 'given-up robots-unavailable');
    assert.equal(kind(robots.verdict(ORIGIN, clock.nowMs() + CONFIG.maxAgeMs)), 'fetch');
  });

  test('tells which origins wait on a robots.txt their server answered with an error, and hears of each failure', async () => {
    const { clock, robots, fetch, failures } = cache((url, attempt) =>
      url.startsWith('http://ok.test') ? { status: 200, body: 'User-agent: *\nAllow: /\n' } : { status: attempt === 1 ? 503 : 500 },
    );
    assert.equal(robots.waiting(0), null);
    await fetch();
    await fetch('http://ok.test');
    const firstTry = failures[0]?.retryAtMs as number;
    assert.deepEqual(failures, [{ origin: ORIGIN, what: 'HTTP 503', failures: 1, retryAtMs: firstTry, isGivenUp: false }]);
    assert.equal(firstTry, 100 + CONFIG.retryMs, 'the retry comes retryMs after the answer');
    assert.deepEqual(robots.waiting(clock.nowMs()), { hosts: 1, nextTryAtMs: firstTry, first: ['http://a.test: HTTP 503'] });
    assert.equal(robots.waiting(firstTry), null, 'due: no longer waiting');
    await clock.advanceTo(firstTry);
    await fetch();
    assert.deepEqual(robots.waiting(clock.nowMs())?.first, ['http://a.test: HTTP 500']);
    await clock.advanceTo(failures[1]?.retryAtMs as number);
    await fetch();
    assert.deepEqual(
      failures.map((f) => `${f.what} ${f.failures} ${f.isGivenUp}`),
      ['HTTP 503 1 false', 'HTTP 500 2 false', 'HTTP 500 3 true'],
    );
    assert.equal(robots.waiting(clock.nowMs()), null, 'given up: its URLs end, nothing waits');
  });

  test('a host that refuses the connection is retried, named by how it failed, and left to host-reachability to show', async () => {
    const refusing: Fetcher = {
      fetch: async (r): Promise<FetchOutcome> => ({
        kind: 'connect-error',
        url: r.url,
        ip: '10.0.0.1',
        code: 'ECONNREFUSED',
        message: 'refused',
        timings: { dnsMs: 1, totalMs: 1 },
      }),
      close: async () => {},
    };
    const { robots, fetch, failures } = cache(() => ({ status: 200 }), {}, refusing);
    await fetch();
    assert.deepEqual(
      failures.map((f) => [f.what, f.failures, f.isGivenUp]),
      [['connection refused (ECONNREFUSED)', 1, false]],
    );
    assert.equal(robots.waiting(0), null);
  });

  test('a name that does not resolve is given up at once, with that outcome, and the report says nothing was sent', async () => {
    const failing: Fetcher = {
      fetch: async (r): Promise<FetchOutcome> => ({
        kind: 'dns-error',
        url: r.url,
        ip: null,
        host: 'a.test',
        code: 'ENOTFOUND',
        message: 'no',
        timings: { dnsMs: 1, totalMs: 1 },
      }),
      close: async () => {},
    };
    const { robots, fetch, failures } = cache(() => ({ status: 200 }), {}, failing);
    const report = await fetch();
    assert.equal(kind(robots.verdict(ORIGIN, 0)), 'given-up dns-error');
    assert.deepEqual(
      failures.map((f) => [f.what, f.failures, f.isGivenUp]),
      [['dns-error', 1, true]],
    );
    assert.equal(report.isWithoutRequest, true, 'the fetch loop then spares the host a politeness gap');
    assert.equal(report.connectionFailure, null, 'NXDOMAIN is an answer, not a name server that failed to give one');
  });

  test('follows redirects with the politeness gap between hops, up to maxRedirects', async () => {
    const moved = cache((url) =>
      url.endsWith('/robots.txt')
        ? { status: 301, headers: { Location: '/moved.txt' } }
        : { status: 200, body: 'User-agent: *\nDisallow: /m\n' },
    );
    await moved.fetch();
    assert.deepEqual(
      moved.fake.received.map((r) => `${r.atMs} ${r.url}`),
      ['0 http://a.test/robots.txt', '1100 http://a.test/moved.txt'],
    );
    const v = moved.robots.verdict(ORIGIN, moved.clock.nowMs());
    assert.ok(v.kind === 'rules' && !v.rules.isAllowed('/m'));

    const loop = cache((url, attempt) => ({ status: 302, headers: { Location: `${url.replace(/\?.*/, '')}?${attempt}` } }), {
      maxRedirects: 2,
    });
    await loop.fetch();
    assert.equal(loop.fake.received.length, 3);
    const w = loop.robots.verdict(ORIGIN, loop.clock.nowMs());
    assert.ok(w.kind === 'rules' && w.rules.isAllowed('/'), 'too many redirects: allowed');
  });

  test('keeps the rules of as many origins as cacheBytes holds, least recently used dropped first', async () => {
    // Five rules of about 20 characters: about 2,000 bytes each origin by RobotsRules.approxBytes.
    const body = (o: string): string => `User-agent: *\n${[1, 2, 3, 4, 5].map((k) => `Disallow: /${o}/section-${k}/`).join('\n')}\n`;
    const { robots, fetch } = cache((url) => ({ status: 200, body: body(new URL(url).hostname) }), { cacheBytes: 4_500 });
    await fetch('http://a.test');
    const one = robots.bytes;
    assert.ok(one > 1_700 && one < 2_300, `one origin's rules: ${one} bytes`);
    await fetch('http://b.test');
    assert.equal(robots.bytes, 2 * one);
    assert.equal(kind(robots.verdict('http://a.test', 300)), 'rules delay=0', 'a.test is now the most recently used');
    await fetch('http://c.test');
    assert.equal(robots.size, 2);
    assert.equal(robots.bytes, 2 * one);
    assert.equal(kind(robots.verdict('http://b.test', 300)), 'fetch', 'b.test, least recently used, was dropped');
    assert.equal(kind(robots.verdict('http://a.test', 300)), 'rules delay=0');
    const c = robots.verdict('http://c.test', 300);
    assert.ok(c.kind === 'rules' && !c.rules.isAllowed('/c.test/section-3/x') && c.rules.isAllowed('/c.test/other'));
  });

  test('one origin whose rules alone pass cacheBytes is kept, and the others with rules give way', async () => {
    const big = `User-agent: *\n${Array.from({ length: 200 }, (_, k) => `Disallow: /private/area-${k}/`).join('\n')}\n`;
    const small = 'User-agent: *\nDisallow: /tmp/\n';
    const route = (url: string): { status: number; body?: string } =>
      url.startsWith('http://big.test')
        ? { status: 200, body: big }
        : url.startsWith('http://small.test')
          ? { status: 200, body: small }
          : { status: 404 };
    const { robots, fetch } = cache(route, {
      cacheBytes: 10_000,
    });
    await fetch('http://small.test');
    await fetch('http://a.test');
    await fetch('http://big.test');
    assert.equal(robots.size, 2, 'a.test (no robots.txt) costs nothing and stays; small.test gives way');
    assert.equal(kind(robots.verdict('http://small.test', 300)), 'fetch');
    assert.equal(kind(robots.verdict('http://a.test', 300)), 'rules delay=0');
    assert.ok(robots.bytes > 10_000, `${robots.bytes} bytes`);
    const v = robots.verdict('http://big.test', 300);
    assert.ok(v.kind === 'rules' && !v.rules.isAllowed('/private/area-199/') && v.rules.isAllowed('/public'));
  });

  test('keeps at most cacheEntries origins', async () => {
    const { robots, fetch } = cache(() => ({ status: 404 }), { cacheEntries: 2 });
    for (const o of ['http://a.test', 'http://b.test', 'http://c.test']) await fetch(o);
    assert.equal(robots.size, 2);
    assert.equal(kind(robots.verdict('http://a.test', 300)), 'fetch');
    assert.equal(kind(robots.verdict('http://c.test', 300)), 'rules delay=0');
  });
});
