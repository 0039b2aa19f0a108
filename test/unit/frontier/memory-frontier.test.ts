/**
 * MemoryFrontier (src/frontier/memory-frontier.ts) on a manual clock: every `nowMs` below is a plain
 * number chosen by the test, so each expected time is exact.
 *
 * Unless a test says otherwise the politeness is the default one: gap = max(1000 ms, min(5 × duration,
 * 30,000 ms), Crawl-delay), one lease per host and one per IP address.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryFrontier, backQueueCountFor } from '../../../src/frontier/memory-frontier.js';
import { Rng } from '../../../src/core/prng.js';
import {
  canReprioritize,
  DEFAULT_POLITENESS,
  fetchGapMs,
  nextContactMs,
  politenessRules,
  type CompletionReport,
  type Lease,
} from '../../../src/frontier/frontier.js';
import { entry, take, waitUntil } from '../../helpers/frontier.js';
import { urlFingerprintInto } from '../../../src/url/fingerprint.js';

const ok = (fetchDurationMs: number, extra: Partial<CompletionReport> = {}): CompletionReport => ({ fetchDurationMs, ...extra });

/** Leases and completes (0 ms fetch) everything that can go at `nowMs`, one URL at a time. */
function crawlAt(frontier: MemoryFrontier, nowMs: number): string[] {
  const urls: string[] = [];
  for (let r = frontier.next(nowMs); r.kind === 'url'; r = frontier.next(nowMs)) {
    urls.push(`${r.lease.entry.url}#${r.lease.attempt}`);
    frontier.complete(r.lease, ok(0), nowMs);
  }
  return urls;
}

describe('MemoryFrontier: order', () => {
  test('one host: URLs leave in the order they were added, one delay apart', () => {
    // a.test/1..4 added at t=0. Each fetch takes 100 ms, so the gap is max(1000, 5 × 100) = 1000 ms
    // after each completion: leases at 0, 1100, 2200, 3300.
    const frontier = new MemoryFrontier();
    for (let i = 1; i <= 4; i++) frontier.add(entry(`http://a.test/${i}`), 0);
    const order: string[] = [];
    let now = 0;
    for (let i = 1; i <= 4; i++) {
      const lease = take(frontier, now);
      assert.equal(lease.leasedAtMs, now);
      order.push(lease.entry.url);
      now += 100;
      frontier.complete(lease, ok(100), now);
      if (i < 4) {
        assert.equal(waitUntil(frontier.next(now)), now + 1000);
        now += 1000;
      }
    }
    assert.equal(now, 3400);
    assert.deepEqual(order, ['http://a.test/1', 'http://a.test/2', 'http://a.test/3', 'http://a.test/4']);
    assert.equal(frontier.next(now).kind, 'empty');
  });

  test('ready hosts take turns: the oldest URL among contactable hosts goes first', () => {
    // Added in this order: a1 a2 b1 b2 c1 c2 (all priority 0).
    // t=0:    a, b and c may all be contacted: a1, b1, c1; then every host has its one lease out,
    //         so the next call must wait for a completion (untilMs = Infinity).
    // t=100:  all three complete after 100 ms; each gap is 1000 ms -> all ready at 1100.
    // t=1100: a2, b2, c2, again in add order.
    const frontier = new MemoryFrontier();
    for (const h of ['a', 'b', 'c']) for (const i of [1, 2]) frontier.add(entry(`http://${h}.test/${i}`), 0);
    const first = [take(frontier, 0), take(frontier, 0), take(frontier, 0)];
    assert.deepEqual(
      first.map((l) => l.entry.url),
      ['http://a.test/1', 'http://b.test/1', 'http://c.test/1'],
    );
    assert.equal(waitUntil(frontier.next(0)), Infinity);
    for (const lease of first) frontier.complete(lease, ok(100), 100);
    assert.equal(waitUntil(frontier.next(100)), 1100);
    const second = [take(frontier, 1100), take(frontier, 1100), take(frontier, 1100)];
    assert.deepEqual(
      second.map((l) => l.entry.url),
      ['http://a.test/2', 'http://b.test/2', 'http://c.test/2'],
    );
  });

  test('higher priority first, across ready hosts and within a host; ties first-come first-served', () => {
    // Added: a1 (p 0), a2 (p 5), b1 (p 5), b2 (p 9), c1 (p 5). One lease per host at a time, so at t=0:
    // b2 (9) is the best URL anywhere; then a2 (5, added before c1); then c1 (5); then all hosts are busy.
    // Once they are free again (no delay configured): b1 (5) before a1 (0).
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0 });
    frontier.add(entry('http://a.test/1', { priority: 0 }), 0);
    frontier.add(entry('http://a.test/2', { priority: 5 }), 0);
    frontier.add(entry('http://b.test/1', { priority: 5 }), 0);
    frontier.add(entry('http://b.test/2', { priority: 9 }), 0);
    frontier.add(entry('http://c.test/1', { priority: 5 }), 0);
    const leases = [take(frontier, 0), take(frontier, 0), take(frontier, 0)];
    assert.deepEqual(
      leases.map((l) => l.entry.url),
      ['http://b.test/2', 'http://a.test/2', 'http://c.test/1'],
    );
    assert.equal(waitUntil(frontier.next(0)), Infinity);
    for (const lease of leases) frontier.complete(lease, ok(0), 10);
    assert.deepEqual(crawlAt(frontier, 10), ['http://b.test/1#1', 'http://a.test/1#1']);
  });

  test('reprioritize moves a held URL; unknown URLs are refused; a retried URL keeps its new priority', () => {
    // a1 a2 a3 (p 0) on one host, no delay. a3 is raised to 10 and leaves first. While in flight it is
    // lowered to -1 and fails: it comes back behind a1 and a2.
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0 });
    assert.ok(canReprioritize(frontier));
    for (let i = 1; i <= 3; i++) frontier.add(entry(`http://a.test/${i}`), 0);
    assert.equal(frontier.reprioritize('http://a.test/3', 10), true);
    assert.equal(frontier.reprioritize('http://nowhere.test/', 10), false);
    assert.throws(() => frontier.reprioritize('http://a.test/1', Number.NaN), RangeError);
    const a3 = take(frontier, 0);
    assert.equal(a3.entry.url, 'http://a.test/3');
    assert.equal(frontier.reprioritize('http://a.test/3', -1), true);
    frontier.complete(a3, ok(0, { shouldRetry: true }), 0);
    assert.deepEqual(crawlAt(frontier, 0), ['http://a.test/1#1', 'http://a.test/2#1', 'http://a.test/3#2']);
    assert.equal(frontier.reprioritize('http://a.test/1', 3), false, 'a fetched URL is no longer held');
  });

  test('a requeued URL keeps its place and its attempt, is not a retry, and still costs its host the gap of what the lease fetched', () => {
    // a1 a2 on one host, min delay 100. a1's lease fetches robots.txt (30 ms) and is requeued: a1 is
    // next again (its place), at attempt 1, after the gap that request earned, and no retry is counted.
    const frontier = new MemoryFrontier({ minDelayMs: 100, delayFactor: 0 });
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://a.test/2'), 0);
    const first = take(frontier, 0);
    frontier.complete(first, ok(30, { isRequeue: true }), 30);
    assert.equal(waitUntil(frontier.next(30)), 130);
    const again = take(frontier, 130);
    assert.deepEqual([again.entry.url, again.attempt], ['http://a.test/1', 1]);
    assert.equal(frontier.stats().retries, 0);
    assert.throws(
      () => frontier.complete(again, ok(1, { isRequeue: true, shouldRetry: true }), 131),
      RangeError,
      'requeued or retried, not both',
    );
    assert.throws(() => frontier.endFetch(again, ok(1, { isRequeue: true }), 131), RangeError, 'a requeue is completed, not ended');
  });

  test('reprioritize also reorders the front queue and hosts waiting in it', () => {
    // One back queue: a holds it; b1 and c1 wait in the front queue in add order. Raising c1 makes c
    // the next host to get the back queue once a is done.
    const frontier = new MemoryFrontier({ backQueueCount: 1, minDelayMs: 0, delayFactor: 0 });
    for (const url of ['http://a.test/1', 'http://b.test/1', 'http://c.test/1']) frontier.add(entry(url), 0);
    assert.equal(frontier.stats().frontQueued, 2);
    frontier.reprioritize('http://c.test/1', 1);
    assert.deepEqual(crawlAt(frontier, 0), ['http://a.test/1#1', 'http://c.test/1#1', 'http://b.test/1#1']);
  });
});

describe('MemoryFrontier: politeness delay', () => {
  // One host, two URLs. The first is leased at 0 and completes at 700 with the given report; the second
  // must become available exactly at 700 + gap, not a millisecond earlier.
  const cases: { name: string; report: CompletionReport; gap: number }[] = [
    { name: 'minDelay wins (5 × 100 = 500 < 1000)', report: ok(100), gap: 1000 },
    { name: '5 × duration wins (5 × 400 = 2000 > 1000)', report: ok(400), gap: 2000 },
    { name: 'Crawl-delay wins (3000 > 1000, > 5 × 100)', report: ok(100, { crawlDelayMs: 3000 }), gap: 3000 },
    { name: '5 × duration beats Crawl-delay (5 × 700 = 3500 > 3000)', report: ok(700, { crawlDelayMs: 3000 }), gap: 3500 },
    { name: 'a 0 ms fetch still waits minDelay', report: ok(0), gap: 1000 },
  ];
  for (const { name, report, gap } of cases) {
    test(name, () => {
      const frontier = new MemoryFrontier();
      frontier.add(entry('http://a.test/1'), 0);
      frontier.add(entry('http://a.test/2'), 0);
      frontier.complete(take(frontier, 0), report, 700);
      assert.equal(waitUntil(frontier.next(700)), 700 + gap);
      assert.equal(waitUntil(frontier.next(700 + gap - 1)), 700 + gap);
      assert.equal(take(frontier, 700 + gap).entry.url, 'http://a.test/2');
      assert.equal(nextContactMs(700, report, 0, politenessRules()), 700 + gap);
    });
  }

  test('k and minDelay are configurable', () => {
    const frontier = new MemoryFrontier({ minDelayMs: 50, delayFactor: 2 });
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://a.test/2'), 0);
    frontier.complete(take(frontier, 0), ok(40), 40); // max(50, 2 × 40) = 80
    assert.equal(waitUntil(frontier.next(40)), 120);
  });

  test('a host that drains keeps its delay when new URLs arrive', () => {
    // a1 completes at 100 (gap 1000 -> 1100) and a's back queue is given up; a2 arrives at 200 and
    // must still wait until 1100.
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/1'), 0);
    frontier.complete(take(frontier, 0), ok(100), 100);
    assert.equal(frontier.stats().activeHosts, 0);
    assert.equal(frontier.stats().dormantHosts, 1);
    frontier.add(entry('http://a.test/2'), 200);
    assert.equal(waitUntil(frontier.next(200)), 1100);
    assert.equal(take(frontier, 1100).entry.url, 'http://a.test/2');
    assert.equal(frontier.stats().dormantHosts, 0, 'remembered politeness is dropped once it has passed');
  });

  test('a completion without a request leaves the host where its last request put it', () => {
    const frontier = new MemoryFrontier();
    for (const i of [1, 2, 3, 4]) frontier.add(entry(`http://a.test/${i}`), 0);
    frontier.complete(take(frontier, 0), ok(100), 100); // a real request: next contact at 1100
    const second = take(frontier, 1100);
    frontier.complete(second, { fetchDurationMs: 0, isWithoutRequest: true }, 1150); // e.g. robots.txt said no
    const third = take(frontier, 1150);
    assert.equal(third.entry.url, 'http://a.test/3', 'the next URL goes at once');
    assert.throws(() => frontier.complete(third, { fetchDurationMs: 0, isWithoutRequest: true, shouldBackOff: true }, 1150), RangeError);
    frontier.complete(third, ok(100), 1200);
    assert.equal(waitUntil(frontier.next(1200)), 2200, 'a real request sets the gap again');
  });

  test('wait returns the exact earliest time any host may be contacted', () => {
    // a: completes at 100 after 100 ms      -> 100 + max(1000, 500)        = 1100
    // b: completes at 50 after 400 ms       -> 50 + max(1000, 2000)        = 2050
    // c: completes at 10, Crawl-delay 1010  -> 10 + max(1000, 500, 1010)   = 1020
    const frontier = new MemoryFrontier();
    for (const h of ['a', 'b', 'c']) for (const i of [1, 2]) frontier.add(entry(`http://${h}.test/${i}`), 0);
    const [a, b, c] = [take(frontier, 0), take(frontier, 0), take(frontier, 0)] as [Lease, Lease, Lease];
    frontier.complete(c, ok(100, { crawlDelayMs: 1010 }), 10);
    frontier.complete(b, ok(400), 50);
    frontier.complete(a, ok(100), 100);
    assert.equal(waitUntil(frontier.next(200)), 1020);
    assert.equal(take(frontier, 1020).entry.url, 'http://c.test/2');
    assert.equal(waitUntil(frontier.next(1020)), 1100);
    assert.equal(take(frontier, 1100).entry.url, 'http://a.test/2');
    assert.equal(waitUntil(frontier.next(1100)), 2050);
  });
});

describe('MemoryFrontier: the cap on k × duration (maxDelayMs)', () => {
  // One host, two URLs. The first is leased at 0 and completes at `at` with the given report; the
  // second must become available exactly at `at` + gap. Default rules unless `rules` says otherwise:
  // minDelay 1000, k = 5, maxDelay 30,000, back-off from 10,000.
  const cases: { name: string; at: number; report: CompletionReport; rules?: Parameters<typeof politenessRules>[0]; gap: number }[] = [
    // The slow drip of issue 16: a body cut by the 120 s total limit. Uncapped: 5 × 120 s = 600 s.
    { name: 'a 120 s fetch earns 30 s, not 5 × 120 s = 600 s', at: 120_000, report: ok(120_000), gap: 30_000 },
    { name: 'the cap starts at 6 s of fetch (5 × 6000 = 30,000)', at: 6000, report: ok(6000), gap: 30_000 },
    { name: 'below the cap k × duration counts as before (5 × 5000 = 25,000)', at: 5000, report: ok(5000), gap: 25_000 },
    {
      name: 'the cap is configurable (5 × 10,000 capped at 12,000)',
      at: 10_000,
      report: ok(10_000),
      rules: { maxDelayMs: 12_000 },
      gap: 12_000,
    },
    { name: 'Crawl-delay is not capped by it (60 s > 30 s)', at: 120_000, report: ok(120_000, { crawlDelayMs: 60_000 }), gap: 60_000 },
    { name: 'Retry-After is not capped by it (120 s > 30 s)', at: 120_000, report: ok(120_000, { retryAfterMs: 120_000 }), gap: 120_000 },
    {
      name: 'the back-off is not capped by it (first back-off 40 s > 30 s)',
      at: 120_000,
      report: ok(120_000, { shouldBackOff: true }),
      rules: { backoffBaseMs: 40_000 },
      gap: 40_000,
    },
    {
      name: 'a cap below minDelay leaves the gap at minDelay (the floor wins)',
      at: 100,
      report: ok(100),
      rules: { minDelayMs: 2000, maxDelayMs: 300 },
      gap: 2000,
    },
    {
      name: 'a cap below minDelay: long fetches too wait minDelay exactly',
      at: 9000,
      report: ok(9000),
      rules: { minDelayMs: 2000, maxDelayMs: 300 },
      gap: 2000,
    },
  ];
  for (const { name, at, report, rules, gap } of cases) {
    test(name, () => {
      const frontier = new MemoryFrontier(rules);
      frontier.add(entry('http://a.test/1'), 0);
      frontier.add(entry('http://a.test/2'), 0);
      frontier.complete(take(frontier, 0), report, at);
      assert.equal(waitUntil(frontier.next(at)), at + gap);
      assert.equal(waitUntil(frontier.next(at + gap - 1)), at + gap);
      assert.equal(take(frontier, at + gap).entry.url, 'http://a.test/2');
    });
  }

  test('the exponential back-off doubles past the cap, up to backoffMaxMs', () => {
    // base 20,000, cap 30,000 on k × duration (durations of 0 here): 20, 40, 80 s.
    const frontier = new MemoryFrontier({ backoffBaseMs: 20_000 });
    for (let i = 1; i <= 4; i++) frontier.add(entry(`http://a.test/${i}`), 0);
    let now = 0;
    const gaps: number[] = [];
    for (let i = 0; i < 3; i++) {
      frontier.complete(take(frontier, now), ok(0, { shouldBackOff: true }), now);
      const until = waitUntil(frontier.next(now));
      gaps.push(until - now);
      now = until;
    }
    assert.deepEqual(gaps, [20_000, 40_000, 80_000]);
  });

  test('fetchGapMs and nextContactMs say the same; the default is 30 s; a bad cap throws', () => {
    assert.equal(DEFAULT_POLITENESS.maxDelayMs, 30_000);
    const rules = politenessRules();
    assert.equal(fetchGapMs(120_000, rules), 30_000);
    assert.equal(fetchGapMs(100, rules), 1000);
    assert.equal(nextContactMs(500, ok(120_000), 0, rules), 30_500);
    assert.equal(fetchGapMs(9000, politenessRules({ minDelayMs: 2000, maxDelayMs: 300 })), 2000);
    for (const maxDelayMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => new MemoryFrontier({ maxDelayMs }), /maxDelayMs must be a finite number >= 0/);
    }
  });
});

describe('MemoryFrontier: connection limits', () => {
  test('default: never two leases in flight for one host', () => {
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0 });
    for (let i = 1; i <= 3; i++) frontier.add(entry(`http://a.test/${i}`), 0);
    const first = take(frontier, 0);
    assert.equal(waitUntil(frontier.next(0)), Infinity);
    assert.deepEqual(frontier.inFlight(), [first]);
    frontier.complete(first, ok(0), 5);
    take(frontier, 5);
    assert.equal(frontier.next(5).kind, 'wait');
  });

  test('default: two hosts on one IP address never have two leases out together', () => {
    // a.test and b.test both resolve to 10.0.0.1 (known at add). a1 goes first; b1 must wait for a1
    // to complete even though b itself has never been contacted. The IP rule limits concurrency only:
    // b1 may go the moment a1 completes.
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/1', { ip: '10.0.0.1' }), 0);
    frontier.add(entry('http://b.test/1', { ip: '10.0.0.1' }), 0);
    frontier.add(entry('http://c.test/1', { ip: '10.0.0.2' }), 0);
    const a1 = take(frontier, 0);
    assert.equal(a1.entry.url, 'http://a.test/1');
    assert.equal(a1.ip, '10.0.0.1');
    assert.equal(take(frontier, 0).entry.url, 'http://c.test/1', 'another IP is not held back');
    assert.equal(waitUntil(frontier.next(0)), Infinity);
    frontier.complete(a1, ok(100), 100);
    const b1 = take(frontier, 100);
    assert.equal(b1.entry.url, 'http://b.test/1');
    assert.equal(b1.ip, '10.0.0.1');
  });

  test('exactly N leases per host with maxConnectionsPerHost = N', () => {
    const frontier = new MemoryFrontier({ maxConnectionsPerHost: 3, maxConnectionsPerIp: 10 });
    for (let i = 1; i <= 5; i++) frontier.add(entry(`http://a.test/${i}`, { ip: '10.0.0.1' }), 0);
    const leases = [take(frontier, 0), take(frontier, 0), take(frontier, 0)];
    assert.deepEqual(
      leases.map((l) => l.entry.url),
      ['http://a.test/1', 'http://a.test/2', 'http://a.test/3'],
    );
    assert.equal(waitUntil(frontier.next(0)), Infinity);
    assert.equal(frontier.stats().inFlight, 3);
    // One completes at 100 (gap 1000): the host as a whole waits until 1100, then has room for one.
    frontier.complete(leases[0] as Lease, ok(100), 100);
    assert.equal(waitUntil(frontier.next(100)), 1100);
    assert.equal(take(frontier, 1100).entry.url, 'http://a.test/4');
    assert.equal(waitUntil(frontier.next(1100)), Infinity);
  });

  test('exactly N leases per IP with maxConnectionsPerIp = N, over several hosts', () => {
    // Three hosts on 10.0.0.1, two URLs each, limit 2 per IP: two leases, then wait.
    const frontier = new MemoryFrontier({ maxConnectionsPerIp: 2 });
    for (const h of ['a', 'b', 'c']) for (const i of [1, 2]) frontier.add(entry(`http://${h}.test/${i}`, { ip: '10.0.0.1' }), 0);
    const leases = [take(frontier, 0), take(frontier, 0)];
    assert.deepEqual(
      leases.map((l) => l.entry.url),
      ['http://a.test/1', 'http://b.test/1'],
    );
    assert.equal(waitUntil(frontier.next(0)), Infinity);
    frontier.complete(leases[1] as Lease, ok(10), 10);
    assert.equal(take(frontier, 10).entry.url, 'http://c.test/1');
    assert.equal(waitUntil(frontier.next(10)), 1010, 'b waits for its own delay; the IP is full until then');
  });

  test('a host whose IP is unknown is limited by host only, until a completion reports the IP', () => {
    // a.test and b.test have no IP at add: both may be leased together. Their completions reveal
    // that both live on 10.0.0.9; from then on they share one connection.
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0 });
    for (const h of ['a', 'b']) for (const i of [1, 2]) frontier.add(entry(`http://${h}.test/${i}`), 0);
    const a1 = take(frontier, 0);
    const b1 = take(frontier, 0);
    assert.equal(a1.ip, undefined);
    assert.equal(b1.ip, undefined);
    frontier.complete(a1, ok(0, { ip: '10.0.0.9' }), 10);
    frontier.complete(b1, ok(0, { ip: '10.0.0.9' }), 10);
    const a2 = take(frontier, 10);
    assert.equal(a2.ip, '10.0.0.9');
    assert.equal(waitUntil(frontier.next(10)), Infinity, 'b2 waits: the IP is now known and busy');
    frontier.complete(a2, ok(0), 20);
    assert.equal(take(frontier, 20).entry.url, 'http://b.test/2');
  });

  test('a lease taken before the IP was known is counted where it was taken', () => {
    // maxConnectionsPerHost 2: a1 and a2 go out with no IP known. a1 reports 10.0.0.1 while a2 is still
    // out; c (known on 10.0.0.1) can still take the IP's single connection, because a2 counts against
    // a alone, and a3 now waits for the IP.
    const frontier = new MemoryFrontier({ maxConnectionsPerHost: 2, minDelayMs: 0, delayFactor: 0 });
    for (let i = 1; i <= 3; i++) frontier.add(entry(`http://a.test/${i}`), 0);
    const a1 = take(frontier, 0);
    take(frontier, 0);
    frontier.complete(a1, ok(0, { ip: '10.0.0.1' }), 5);
    frontier.add(entry('http://c.test/1', { ip: '10.0.0.1' }), 5);
    const next = take(frontier, 5);
    assert.equal(next.ip, '10.0.0.1');
    assert.equal(waitUntil(frontier.next(5)), Infinity);
    assert.equal(frontier.inFlight().length, 2);
  });
});

describe('MemoryFrontier: back-off and retries', () => {
  test('Retry-After pushes the host to at least now + retryAfterMs', () => {
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://a.test/2'), 0);
    frontier.complete(take(frontier, 0), ok(100, { retryAfterMs: 60_000 }), 100);
    assert.equal(waitUntil(frontier.next(100)), 60_100);
    assert.equal(frontier.stats().backoffs, 1);
  });

  test('a Retry-After shorter than the politeness gap does not shorten it', () => {
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://a.test/2'), 0);
    frontier.complete(take(frontier, 0), ok(1000, { retryAfterMs: 10 }), 1000);
    assert.equal(waitUntil(frontier.next(1000)), 6000); // 5 × 1000 wins over 10
  });

  test('without Retry-After the back-off doubles, is capped, and resets after a success', () => {
    // base 1000, cap 5000, no other delay: 1000, 2000, 4000, 5000, 5000; then a success (gap 0) and
    // a new failure starts again at 1000.
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0, backoffBaseMs: 1000, backoffMaxMs: 5000 });
    for (let i = 1; i <= 10; i++) frontier.add(entry(`http://a.test/${i}`), 0);
    let now = 0;
    const gaps: number[] = [];
    let lease = take(frontier, now);
    for (const isFailure of [true, true, true, true, true, false, true]) {
      frontier.complete(lease, ok(0, { shouldBackOff: isFailure }), now);
      const result = frontier.next(now);
      if (result.kind === 'url') {
        gaps.push(0);
        lease = result.lease;
        continue;
      }
      const until = waitUntil(result);
      gaps.push(until - now);
      now = until;
      lease = take(frontier, now);
    }
    assert.deepEqual(gaps, [1000, 2000, 4000, 5000, 5000, 0, 1000]);
  });

  test('a host that drains remembers its failures for backoffMaxMs past its next-contact time', () => {
    // base 1000, cap 5000, no other delay. Each URL is added only after the previous one was done,
    // so the host gives up its back queue every time.
    //   a1 fails at 0      -> 1 failure,  ready 1000, remembered until 1000 + 5000 = 6000
    //   a2 (added 3000) fails at 3000 -> 2 failures, ready 5000
    //   a3 (added 3000) fails at 5000 -> 3 failures, ready 9000, remembered until 14,000
    //   a4 added at 14,000: forgotten, so its failure is the first again -> ready 15,000
    const frontier = new MemoryFrontier({ minDelayMs: 0, delayFactor: 0, backoffBaseMs: 1000, backoffMaxMs: 5000 });
    const fail = ok(0, { shouldBackOff: true });
    frontier.add(entry('http://a.test/1'), 0);
    frontier.complete(take(frontier, 0), fail, 0);
    frontier.add(entry('http://a.test/2'), 3000);
    frontier.complete(take(frontier, 3000), fail, 3000);
    frontier.add(entry('http://a.test/3'), 3000);
    assert.equal(waitUntil(frontier.next(3000)), 5000);
    frontier.complete(take(frontier, 5000), fail, 5000);
    assert.equal(frontier.stats().dormantHosts, 1);
    frontier.add(entry('http://a.test/4'), 14_000);
    assert.equal(frontier.stats().dormantHosts, 0);
    frontier.complete(take(frontier, 14_000), fail, 14_000);
    frontier.add(entry('http://a.test/5'), 14_000);
    assert.equal(waitUntil(frontier.next(14_000)), 15_000);
  });

  test('a retried URL comes back first on its host, with attempt + 1', () => {
    const frontier = new MemoryFrontier();
    frontier.add(entry('http://a.test/1'), 0);
    frontier.add(entry('http://a.test/2'), 0);
    const first = take(frontier, 0);
    assert.equal(first.attempt, 1);
    frontier.complete(first, ok(200, { shouldRetry: true, shouldBackOff: true }), 200);
    // 200 + max(1000, 5 × 200, back-off 10,000) = 10,200
    assert.equal(waitUntil(frontier.next(200)), 10_200);
    const again = take(frontier, 10_200);
    assert.equal(again.entry.url, 'http://a.test/1');
    assert.equal(again.attempt, 2);
    assert.equal(frontier.stats().retries, 1);
    frontier.complete(again, ok(100), 10_300);
    assert.equal(take(frontier, 11_300).entry.url, 'http://a.test/2');
  });
});

describe('MemoryFrontier: lifecycle', () => {
  test('empty only when nothing is queued and nothing is in flight', () => {
    const frontier = new MemoryFrontier();
    assert.equal(frontier.next(0).kind, 'empty');
    frontier.add(entry('http://a.test/1'), 0);
    const lease = take(frontier, 0);
    assert.equal(waitUntil(frontier.next(0)), Infinity, 'in flight, so not empty: it may be retried');
    frontier.complete(lease, ok(10, { shouldRetry: true }), 10);
    assert.equal(frontier.next(10).kind, 'wait');
    frontier.complete(take(frontier, 1010), ok(10), 1020);
    assert.equal(frontier.next(1020).kind, 'empty');
    assert.deepEqual(frontier.inFlight(), []);
  });

  test('a URL already held is refused; completing a lease twice throws; bad numbers throw RangeError', () => {
    const frontier = new MemoryFrontier();
    assert.equal(frontier.add(entry('http://a.test/1'), 0), true);
    assert.equal(frontier.add(entry('http://a.test/1'), 0), false);
    assert.equal(frontier.stats().queued, 1);
    const lease = take(frontier, 0);
    assert.equal(frontier.add(entry('http://a.test/1'), 0), false, 'in flight counts as held');
    assert.throws(() => frontier.complete(lease, ok(-1), 0), RangeError);
    assert.throws(() => frontier.complete(lease, ok(1, { retryAfterMs: Number.NaN }), 0), RangeError);
    frontier.complete(lease, ok(1), 1);
    assert.throws(() => frontier.complete(lease, ok(1), 1), /not in flight/);
    assert.equal(frontier.add(entry('http://a.test/1'), 2), true, 'once fetched, the URL-seen test is the gatekeeper');
    assert.throws(() => frontier.add(entry('http://a.test/2', { priority: Infinity }), 0), RangeError);
    assert.throws(() => new MemoryFrontier({ maxConnectionsPerHost: 0 }), RangeError);
    assert.throws(() => new MemoryFrontier({ minDelayMs: -1 }), RangeError);
    assert.throws(() => new MemoryFrontier({ backQueueCount: 1.5 }), RangeError);
  });

  test('at most backQueueCount hosts hold a back queue; the others wait in the front queue', () => {
    // Two back queues. Added: a1, b1, c1, a2. a and b take the back queues; c1 waits in the front queue
    // (a2 goes straight to a's back queue: a has nothing in the front queue). At t=0 only a1 and b1 can
    // go, even though c was never contacted. When b1 completes, b has nothing left, gives up its back
    // queue, and c takes it: c1 goes at once. a2 waits for a's own delay.
    const frontier = new MemoryFrontier({ backQueueCount: 2 });
    for (const url of ['http://a.test/1', 'http://b.test/1', 'http://c.test/1', 'http://a.test/2']) frontier.add(entry(url), 0);
    assert.deepEqual([frontier.stats().activeHosts, frontier.stats().frontQueued], [2, 1]);
    const a1 = take(frontier, 0);
    const b1 = take(frontier, 0);
    assert.deepEqual([a1.entry.url, b1.entry.url], ['http://a.test/1', 'http://b.test/1']);
    assert.equal(waitUntil(frontier.next(0)), Infinity);
    frontier.complete(b1, ok(100), 100);
    assert.equal(take(frontier, 100).entry.url, 'http://c.test/1');
    assert.equal(frontier.stats().activeHosts, 2);
    frontier.complete(a1, ok(100), 150);
    assert.equal(waitUntil(frontier.next(150)), 1150);
    assert.equal(take(frontier, 1150).entry.url, 'http://a.test/2');
  });

  test('back-queue count follows Mercator: three per fetch slot', () => {
    assert.equal(backQueueCountFor(64), 192);
    assert.equal(backQueueCountFor(0), 3);
  });

  test('inFlight lists the leases out, oldest first', () => {
    const frontier = new MemoryFrontier();
    for (const h of ['a', 'b', 'c']) frontier.add(entry(`http://${h}.test/`), 0);
    const leases = [take(frontier, 0), take(frontier, 0), take(frontier, 0)];
    assert.deepEqual(frontier.inFlight(), leases);
    frontier.complete(leases[1] as Lease, ok(1), 1);
    assert.deepEqual(
      frontier.inFlight().map((l) => l.entry.url),
      ['http://a.test/', 'http://c.test/'],
    );
    assert.equal(new Set(leases.map((l) => l.id)).size, 3, 'lease ids are unique');
  });
});

describe('MemoryFrontier: re-prioritizing many URLs at once', () => {
  test('a large batch (heaps rebuilt) and the same changes one by one give the same crawl', () => {
    // 20 hosts over 6 addresses, 3 back queues, 2 fetch slots; a batch re-ranks most queued URLs
    // (the bulk path) and a small one a few (one by one), between leases and completions.
    const rng = new Rng(17, 91, 1);
    const options = { backQueueCount: 3, minDelayMs: 5, delayFactor: 1, maxConnectionsPerIp: 1 };
    const bulk = new MemoryFrontier(options);
    const single = new MemoryFrontier(options);
    const urls: string[] = [];
    for (let i = 0; i < 600; i++) {
      const h = rng.int(20);
      const e = entry(`http://h${h}.test/${i}`, { priority: rng.int(3), ip: `10.0.0.${h % 6}` });
      urls.push(e.url);
      bulk.add(e, 0);
      single.add(e, 0);
    }
    const fp = new Uint32Array(2);
    const orders: [string[], string[]] = [[], []];
    const out: [Lease[], Lease[]] = [[], []];
    let now = 0;
    for (let round = 0; round < 2000; round++) {
      if (round % 40 === 0) {
        const n = round % 80 === 0 ? 500 : 20;
        const picks = Array.from({ length: n }, () => rng.pick(urls));
        const priorities = picks.map(() => rng.int(1000) / 10);
        const his = new Uint32Array(n);
        const los = new Uint32Array(n);
        picks.forEach((u, i) => {
          urlFingerprintInto(u, fp);
          his[i] = fp[0] as number;
          los[i] = fp[1] as number;
        });
        const held = bulk.reprioritizeFingerprints(n, his, los, priorities);
        assert.equal(
          held,
          picks.reduce((k, u, i) => k + (single.reprioritize(u, priorities[i] as number) ? 1 : 0), 0),
        );
      }
      [bulk, single].forEach((f, k) => {
        const r = f.next(now);
        if (r.kind === 'url') {
          orders[k]!.push(r.lease.entry.url);
          out[k]!.push(r.lease);
        }
        if (out[k]!.length >= 2 || r.kind !== 'url') {
          const lease = out[k]!.shift();
          if (lease !== undefined) f.complete(lease, { fetchDurationMs: 3 }, now);
        }
      });
      now += 2;
    }
    assert.ok(orders[0].length > 500, `the crawl must go on (${orders[0].length} leases)`);
    assert.deepEqual(orders[0], orders[1]);
  });
});
