/**
 * The progress lines of `shoal crawl` (src/cli/commands/crawl.ts). Away from a terminal a line is
 * printed every 5 s, while progress events come every second: the rate a line shows covers the
 * time since the line before, not the last event's second (which showed 0/s whenever no page
 * ended in that second, however many had ended since the line before). With a limit, the line says
 * when it will end the run; with fetch durations at hand, how long the recent fetches took.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { duration, etaOf, milliseconds, progressLine, rateSince } from '../../../src/cli/crawl-progress.js';
import type { CrawlProgress } from '../../../src/obs/events.js';

function progress(elapsedMs: number, pages: number, recentPagesPerSecond: number, parked = 0): CrawlProgress {
  return {
    node: 'n',
    elapsedMs,
    urls: pages,
    pages,
    pagesPerSecond: pages / (elapsedMs / 1000),
    recentPagesPerSecond,
    bytes: 0,
    bytesPerSecond: 0,
    frontier: { queued: 10_000, inFlight: 1, activeHosts: 1, parked, readyHosts: 1, waitingHosts: 0, backoffs: 0 },
    hosts: 1,
    errors: {},
    stopReason: null,
    robots: { requests: 1, bytes: 0, results: { parsed: 1 } },
  };
}

describe('progress lines', () => {
  it('show the rate since the line before, from the start for the first one', () => {
    const later = progress(13_000, 172, 0); // no page ended in the last second
    assert.equal(rateSince({ elapsedMs: 7_000, pages: 52 }, later), 20);
    assert.equal(rateSince(null, progress(2_000, 30, 0)), 15);
    assert.match(progressLine(later, { pagesPerSecond: rateSince({ elapsedMs: 7_000, pages: 52 }, later) }), /^13 s · pages 172 \(20\/s\)/);
  });

  it('fall back to the event’s own rate when no time has passed, and show it by default', () => {
    const p = progress(5_000, 40, 8);
    assert.equal(rateSince({ elapsedMs: 5_000, pages: 40 }, p), 8);
    assert.match(progressLine(p), /pages 40 \(8\/s\)/);
  });

  it('fit a terminal row: parts are dropped from the end, never cut in the middle, so a rewrite leaves no wrapped rows', () => {
    const p = { ...progress(125_000, 12_345, 87), errors: { 'http-error': 1_234, timeout: 56, 'connect-error': 7 } };
    const full = progressLine(p);
    assert.ok(full.length > 80, full);
    const fitted = progressLine(p, { columns: 80 });
    assert.ok(fitted.length <= 79, `${fitted.length}: ${fitted}`);
    assert.ok(full.startsWith(fitted), 'a prefix of whole parts');
    assert.ok(full.slice(fitted.length).startsWith(' · '), 'cut at a part boundary');
    assert.match(fitted, /^125 s · pages 12,345 \(87\/s\)/);
    assert.equal(progressLine(p, { columns: 400 }), full, 'a wide terminal shows it all');
    assert.equal(progressLine(p, { columns: 10 }), '125 s', 'a tiny one still shows the first part, cut to fit');
  });

  it('say which hosts wait for a failing robots.txt, and when the next try comes', () => {
    const one = { ...progress(5_000, 0, 0), robotsWaiting: { hosts: 1, nextTryInMs: 894_000, first: ['http://a.test: HTTP 503'] } };
    assert.match(progressLine(one), / · 1 host waits for robots\.txt \(http:\/\/a\.test: HTTP 503\), next try in 14 min 54 s$/);
    const many = {
      ...progress(5_000, 0, 0),
      robotsWaiting: {
        hosts: 12,
        nextTryInMs: 30_000,
        first: ['http://a.test: HTTP 503', 'http://b.test: HTTP 429', 'http://c.test: HTTP 500'],
      },
    };
    assert.match(
      progressLine(many),
      /12 hosts wait for robots\.txt \(http:\/\/a\.test: HTTP 503, .*c\.test: HTTP 500, \.\.\.\), next try in 30 s/,
    );
    assert.doesNotMatch(progressLine(progress(5_000, 0, 0)), /robots/);
  });

  it('name the hosts that do not answer, and how many are given up', () => {
    const one = { ...progress(5_000, 0, 0), unreachable: { failing: 1, givenUp: 0, hosts: ['a.test:80: connection refused'] } };
    assert.match(progressLine(one), / · 1 host not answering \(a\.test:80: connection refused\)$/);
    const many = { ...progress(5_000, 0, 0), unreachable: { failing: 2, givenUp: 3, hosts: ['a', 'b', 'c'] } };
    assert.match(progressLine(many), / · 5 hosts not answering \(a, b, c, \.\.\.\), 3 given up$/);
  });

  it('show how many of the queued URLs are parked on disk, when any are', () => {
    assert.match(progressLine(progress(5_000, 40, 8, 7_500)), / · frontier 10,000 \(7,500 on disk, 1 in flight\) · /);
    assert.match(progressLine(progress(5_000, 40, 8)), / · frontier 10,000 \(1 in flight\) · /);
  });

  it('show an ETA when a limit is set: the time left at the rate spent so far, for the sooner limit', () => {
    const base = progress(60_000, 600, 10);
    // 600 of 1,000 page fetches at 10/s: 40 s left.
    const pages = { ...base, budget: { pages: { used: 600, limit: 1_000, perSecond: 10 }, bytes: null } };
    assert.deepEqual(etaOf(pages), { ms: 40_000, limit: 'max-pages' });
    assert.match(progressLine(pages), /^60 s · pages 600 \(10\/s\) · ETA 40 s \(max-pages\) · /);
    // 30 MB of 50 MB at 100 kB/s: 200 s, later than the pages' 40 s; at 1 MB/s, 20 s, sooner.
    const both = (bytesPerSecond: number) => ({
      ...base,
      budget: { pages: { used: 600, limit: 1_000, perSecond: 10 }, bytes: { used: 30e6, limit: 50e6, perSecond: bytesPerSecond } },
    });
    assert.deepEqual(etaOf(both(100_000)), { ms: 40_000, limit: 'max-pages' });
    assert.deepEqual(etaOf(both(1e6)), { ms: 20_000, limit: 'max-bytes' });
    assert.match(progressLine(both(1e6)), / · ETA 20 s \(max-bytes\) · /);
  });

  it('show no ETA without a limit, before anything is spent, or once the run has stopped', () => {
    const base = progress(60_000, 600, 10);
    assert.equal(etaOf(base), null);
    assert.doesNotMatch(progressLine(base), /ETA/);
    const idle = { ...base, budget: { pages: { used: 0, limit: 1_000, perSecond: 0 }, bytes: null } };
    assert.equal(etaOf(idle), null);
    const stopped = {
      ...base,
      stopReason: 'max-pages' as const,
      budget: { pages: { used: 1_000, limit: 1_000, perSecond: 10 }, bytes: null },
    };
    assert.doesNotMatch(progressLine(stopped), /ETA/);
    // Spent already (a resumed crawl over its limit): nothing left, not a negative time.
    assert.deepEqual(etaOf({ ...stopped, stopReason: null }), { ms: 0, limit: 'max-pages' });
  });

  it('write durations to the second below an hour, then to the minute', () => {
    assert.equal(duration(0), '0 s');
    assert.equal(duration(44_600), '45 s');
    assert.equal(duration(185_000), '3 min 05 s');
    assert.equal(duration(7_620_000), '2 h 07 min');
    assert.equal(duration(360_000_000), '100 h 00 min');
  });

  it('show the recent fetch latency p50 and p95 after the hosts, when there is one', () => {
    const p = progress(5_000, 40, 8);
    assert.match(progressLine(p, { latency: { p50Ms: 12.4, p95Ms: 1_460, count: 40 } }), / · hosts 1 · fetch p50 12 ms, p95 1\.5 s$/);
    assert.doesNotMatch(progressLine(p, { latency: null }), /p50/);
    assert.equal(milliseconds(0.84), '0.8 ms');
    assert.equal(milliseconds(999.4), '999 ms');
  });
});
