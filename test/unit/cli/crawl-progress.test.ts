/**
 * The progress lines of `shoal crawl` (src/cli/commands/crawl.ts). Away from a terminal a line is
 * printed every 5 s, while progress events come every second: the rate a line shows covers the
 * time since the line before, not the last event's second (which showed 0/s whenever no page
 * ended in that second, however many had ended since the line before).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progressLine, rateSince } from '../../../src/cli/crawl-progress.js';
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
    assert.match(progressLine(later, rateSince({ elapsedMs: 7_000, pages: 52 }, later)), /^13 s · pages 172 \(20\/s\)/);
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
    const fitted = progressLine(p, p.recentPagesPerSecond, 80);
    assert.ok(fitted.length <= 79, `${fitted.length}: ${fitted}`);
    assert.ok(full.startsWith(fitted), 'a prefix of whole parts');
    assert.ok(full.slice(fitted.length).startsWith(' · '), 'cut at a part boundary');
    assert.match(fitted, /^125 s · pages 12,345 \(87\/s\)/);
    assert.equal(progressLine(p, p.recentPagesPerSecond, 400), full, 'a wide terminal shows it all');
    assert.equal(progressLine(p, p.recentPagesPerSecond, 10), '125 s', 'a tiny one still shows the first part, cut to fit');
  });

  it('show how many of the queued URLs are parked on disk, when any are', () => {
    assert.match(progressLine(progress(5_000, 40, 8, 7_500)), / · frontier 10,000 \(7,500 on disk, 1 in flight\) · /);
    assert.match(progressLine(progress(5_000, 40, 8)), / · frontier 10,000 \(1 in flight\) · /);
  });
});
