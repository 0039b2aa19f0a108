/**
 * The progress lines of `shoal crawl` (src/cli/commands/crawl.ts). Away from a terminal a line is
 * printed every 5 s, while progress events come every second: the rate a line shows covers the
 * time since the line before, not the last event's second (which showed 0/s whenever no page
 * ended in that second, however many had ended since the line before).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progressLine, rateSince } from '../../../src/cli/commands/crawl.js';
import type { CrawlProgress } from '../../../src/node/events.js';

function progress(elapsedMs: number, pages: number, recentPagesPerSecond: number, parked = 0): CrawlProgress {
  return {
    node: 'n', elapsedMs, urls: pages, pages, pagesPerSecond: pages / (elapsedMs / 1000), recentPagesPerSecond, bytes: 0, bytesPerSecond: 0,
    frontier: { queued: 10_000, inFlight: 1, activeHosts: 1, parked }, hosts: 1, errors: {}, stopReason: null,
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

  it('show how many of the queued URLs are parked on disk, when any are', () => {
    assert.match(progressLine(progress(5_000, 40, 8, 7_500)), / · frontier 10,000 \(7,500 on disk, 1 in flight\) · /);
    assert.match(progressLine(progress(5_000, 40, 8)), / · frontier 10,000 \(1 in flight\) · /);
  });
});
