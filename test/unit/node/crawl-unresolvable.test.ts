/**
 * Hosts whose names do not resolve cost the crawl nothing (issue 22), on a manual clock against a
 * scripted Web where every request takes 100 ms (minDelayMs 1000, k = 5: each host waits 1000 ms
 * after a request ends).
 *
 *   a.test  10.0.0.1  robots.txt 404
 *           /    -> /p1 /p2, and N URLs on each of d1.test d2.test d3.test, and https://d1.test/s
 *           /p1  -> /p3, and N more URLs on each of d1..d3.test (found once their names are known dead)
 *           /p2, /p3: no links
 *   d1.test d2.test d3.test: the name server answers NXDOMAIN (ENOTFOUND)
 *
 * The names go through the crawl's own CachingResolver, with a scripted system lookup (no query
 * leaves the process) that counts the lookups of every name. Expected: a.test's requests at the very
 * times of a crawl without the dead links (0 robots.txt, 1100 /, 2200 /p1, 3300 /p2, 4400 /p3), the
 * crawl ending when a.test's last page does; one lookup per dead name; no fetch of any URL of a dead
 * host, robots.txt included; every one of the 6N + 1 dead URLs in the crawl log once, as dns-error
 * with the resolver's code, attempt 0.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../../src/core/clock.js';
import { Crawl } from '../../../src/crawl/crawl.js';
import { CachingResolver, type SystemAnswer } from '../../../src/dns/caching-resolver.js';
import type { Resolver } from '../../../src/dns/resolver.js';
import type { CrawlSummary } from '../../../src/node/crawl-stats.js';
import { silentLog } from '../../../src/obs/log.js';
import type { CrawlLogRecord } from '../../../src/store/records.js';
import { MemorySeenSet } from '../../../src/seen/memory-seen-set.js';
import { drive, FakeFetcher, FakeResolver, page, type Reply } from './fake-web.js';

const root = mkdtempSync(join(tmpdir(), 'shoal-unresolvable-'));
after(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

const DEAD = ['d1.test', 'd2.test', 'd3.test'];

/** N links to each dead host, numbered from `from`. */
function deadLinks(n: number, from: number): string[] {
  return DEAD.flatMap((host) => Array.from({ length: n }, (_, i) => `http://${host}/u${from + i}`));
}

function web(n: number): (url: string) => Reply {
  return (url) => {
    switch (url) {
      case 'http://a.test/':
        return page('/p1', '/p2', ...deadLinks(n, 0), ...(n > 0 ? ['https://d1.test/s'] : []));
      case 'http://a.test/p1':
        return page('/p3', ...deadLinks(n, n));
      case 'http://a.test/p2':
      case 'http://a.test/p3':
        return page();
      default:
        return { status: 404 };
    }
  };
}

/** A system lookup that knows a.test only, answers NXDOMAIN for every other name after `delayMs` of clock time, and counts lookups. */
function scriptedLookup(clock: ManualClock, delayMs = 0): { lookup: (host: string) => Promise<SystemAnswer>; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  return {
    calls,
    lookup: async (host) => {
      calls.set(host, (calls.get(host) ?? 0) + 1);
      if (host === 'a.test') return { kind: 'ok', ip: '10.0.0.1', family: 4, ttlMs: 300_000 };
      await clock.sleepUntil(clock.nowMs() + delayMs);
      return { kind: 'dns-error', code: 'ENOTFOUND', message: `queryA ENOTFOUND ${host}` };
    },
  };
}

interface Run {
  readonly summary: CrawlSummary;
  readonly fetcher: FakeFetcher;
  readonly records: CrawlLogRecord[];
}

async function crawl(clock: ManualClock, n: number, resolver: Resolver, concurrency = 4): Promise<Run> {
  const fetcher = new FakeFetcher(clock, web(n), 100, resolver);
  const records: CrawlLogRecord[] = [];
  const summary = await drive(
    clock,
    new Crawl(
      {
        seeds: { urls: ['http://a.test/'] },
        store: { outDir: join(root, `d${++dirs}`) },
        politeness: { minDelayMs: 1000, delayFactor: 5 },
        limits: { concurrency },
        frontier: { kind: 'memory' },
        progressIntervalMs: 0,
        parse: { workers: 0 }, // the manual clock drives the work: every step must be on this thread
      },
      {
        deps: { clock, log: silentLog, events: { fetch: (r) => records.push(r), progress: () => {} } },
        components: { fetcher, resolver, seen: new MemorySeenSet(), warc: null, sinks: {} },
      },
    ).run(),
  );
  return { summary, fetcher, records };
}

const requests = (f: FakeFetcher): string[] => f.received.map((r) => `${r.atMs} ${r.url.replace(/^https?:\/\//, '')}`);
const isDead = (url: string): boolean => DEAD.includes(new URL(url).hostname);

/** Every dead URL ends at the instant the page that linked it ended: no politeness gap, no wait for a slot. */
function assertEndedWithTheirPage(records: readonly CrawlLogRecord[]): void {
  const endOf = new Map(records.filter((r) => !isDead(r.url)).map((r) => [r.url, r.timeMs + r.durationMs]));
  for (const r of records.filter((x) => isDead(x.url))) assert.equal(r.timeMs, endOf.get(r.fromUrl ?? ''), r.url);
}

const A_TEST_ALONE = ['0 a.test/robots.txt', '1100 a.test/', '2200 a.test/p1', '3300 a.test/p2', '4400 a.test/p3'];

describe('hosts whose names do not resolve, on a manual clock', () => {
  test('cost no time, slot or request, one lookup each, and every one of their URLs is logged once as dns-error', async () => {
    const alone = await crawl(new ManualClock(), 0, new FakeResolver({ 'a.test': '10.0.0.1' }));
    assert.deepEqual(requests(alone.fetcher), A_TEST_ALONE);

    for (const n of [5, 50]) {
      const clock = new ManualClock();
      const sys = scriptedLookup(clock);
      const { summary, fetcher, records } = await crawl(clock, n, new CachingResolver({ lookup: sys.lookup, now: () => clock.nowMs() }));
      assert.deepEqual(requests(fetcher), A_TEST_ALONE, `n = ${n}: a.test is crawled as if the dead links were not there`);
      assert.equal(summary.elapsedMs, alone.summary.elapsedMs, `n = ${n}: the crawl takes no longer`);
      assert.deepEqual(fetcher.failedLookups, [], `n = ${n}: no fetch of a dead host, robots.txt included`);
      assert.equal(summary.robotsRequests, 1);
      assert.deepEqual(
        DEAD.map((host) => sys.calls.get(host)),
        [1, 1, 1],
        `n = ${n}: one lookup per dead name`,
      );

      const dead = records.filter((r) => isDead(r.url));
      const expected = [...deadLinks(n, 0), ...deadLinks(n, n), 'https://d1.test/s'].sort();
      assert.deepEqual(dead.map((r) => r.url).sort(), expected, `n = ${n}: every dead URL has one record`);
      for (const r of dead) assert.deepEqual([r.kind, r.attempts, r.reason, r.status], ['dns-error', 0, 'ENOTFOUND', null], r.url);
      assertEndedWithTheirPage(records);
      assert.deepEqual(summary.outcomes, { ok: 4, 'dns-error': 6 * n + 1 });
      assert.deepEqual(summary.frontierLeft, { queued: 0, inFlight: 0, parked: 0 });
    }
  });

  test('a name answered after the slots stopped waiting ends all its URLs at once, without holding a slot', async () => {
    // The name server answers NXDOMAIN 3 s after each query. Every lease of a dead URL meanwhile
    // waits dnsWaitMs (20 ms) and goes back for 1 s; once the answer is in, the next lease of each
    // dead host ends it and every other URL of the host in the same instant. a.test is not held up:
    // with 4 slots one is always free for it.
    const clock = new ManualClock();
    const sys = scriptedLookup(clock, 3000);
    const { summary, fetcher, records } = await crawl(clock, 10, new CachingResolver({ lookup: sys.lookup, now: () => clock.nowMs() }));
    assert.deepEqual(requests(fetcher), A_TEST_ALONE);
    assert.deepEqual(fetcher.failedLookups, []);
    assert.deepEqual(
      DEAD.map((host) => sys.calls.get(host)),
      [1, 1, 1],
      'the leases that waited shared the one lookup',
    );
    for (const host of DEAD) {
      const ended = records.filter((r) => new URL(r.url).hostname === host);
      assert.equal(ended.length, host === 'd1.test' ? 21 : 20);
      assert.equal(new Set(ended.map((r) => r.timeMs)).size, 1, `${host}: its URLs end together, not one gap apart`);
      assert.ok(ended.every((r) => r.kind === 'dns-error' && r.attempts === 0 && r.reason === 'ENOTFOUND'));
    }
    assert.equal(summary.outcomes['dns-error'], 61);
    assert.equal(summary.retries, 0, 'waiting for a name is not a retry');
    assert.equal(summary.elapsedMs, 4500, 'the crawl ends with a.test/p3');
  });

  test('with a resolver that cannot peek, the failed robots.txt lookup ends the host without a politeness gap', async () => {
    // Nothing tells the slots the name is dead before a fetch: each dead host's first lease fetches
    // robots.txt, whose lookup fails (the fake fetcher answers dns-error, as the real one does), and
    // the host is given up (robots-cache.ts). No request was sent: its URLs end at that instant, not
    // one politeness gap later.
    const clock = new ManualClock();
    const { summary, fetcher, records } = await crawl(clock, 5, new FakeResolver({ 'a.test': '10.0.0.1' }), 2);
    assert.deepEqual(requests(fetcher), A_TEST_ALONE);
    assert.deepEqual(fetcher.failedLookups.sort(), [
      'http://d1.test/robots.txt',
      'http://d2.test/robots.txt',
      'http://d3.test/robots.txt',
      'https://d1.test/robots.txt',
    ]);
    assertEndedWithTheirPage(records);
    assert.equal(summary.outcomes['dns-error'], 31);
  });
});
