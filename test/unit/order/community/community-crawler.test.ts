/**
 * The community crawler (src/order/community/community-crawler.ts): queue order per rank on a
 * drawn fixture, capacity, queue discarding, failures, a shared seen set and determinism.
 *
 *     seeds 0, 5        0 → 1, 2      5 → 6      1 → 0, 7      (2, 6, 7 have no links)
 *
 * After 0, 5, 1 (seeds first, then 1, queued first among equals 0): m(0) = m(1) = s(0, 1)/k =
 * (l = 1)/k, m(5) = 0. Queued: 2 (cited by 0), 6 (by 5), 7 (by 1).
 * - citing: 2 and 7 have priority 1/k, 6 has 0 → 2, 7, 6 (2 was queued before 7)
 * - breadth-first: discovery order → 2, 6, 7
 * - candidate: m(2) = max(s(2,0) = 1/2, s(2,1) = c 1)/1 = 1 = m(7), m(6) = 1/2 → 2, 7, 6
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CommunityCrawler, type CommunityCrawlerOptions } from '../../../../src/order/community/community-crawler.js';
import { ringCommunityGraph } from '../../../../src/eval/community-metrics.js';
import type { Csr } from '../../../../src/eval/csr.js';

const LINKS: Record<number, number[]> = { 0: [1, 2], 5: [6], 1: [0, 7], 2: [], 6: [], 7: [] };

function crawl(options: CommunityCrawlerOptions, seeds = [0, 5]): { order: number[]; crawler: CommunityCrawler } {
  const crawler = new CommunityCrawler(seeds, { membership: { k: 1 }, ...options });
  const order: number[] = [];
  for (let page = crawler.next(); page !== null; page = crawler.next()) {
    order.push(page);
    crawler.retrieved(page, LINKS[page] ?? []);
  }
  return { order, crawler };
}

function crawlGraph(graph: Csr, seeds: number[], options: CommunityCrawlerOptions): number[] {
  const crawler = new CommunityCrawler(seeds, options);
  for (let p = crawler.next(); p !== null; p = crawler.next())
    crawler.retrieved(p, graph.targets.subarray(graph.offsets[p], graph.offsets[p + 1]));
  return [...crawler.retrievedPages()];
}

describe('CommunityCrawler', () => {
  it('ranks by the best citing member (the paper)', () => {
    assert.deepEqual(crawl({ rank: 'citing' }).order, [0, 5, 1, 2, 7, 6]);
  });

  it('breadth-first keeps discovery order', () => {
    assert.deepEqual(crawl({ rank: 'breadth-first' }).order, [0, 5, 1, 2, 6, 7]);
  });

  it('candidate ranks by the queued page own membership', () => {
    assert.deepEqual(crawl({ rank: 'candidate' }).order, [0, 5, 1, 2, 7, 6]);
  });

  it('stops at capacity, and a failed fetch frees its slot', () => {
    const { order, crawler } = crawl({ capacity: 3 });
    assert.deepEqual(order, [0, 5, 1]);
    assert.equal(crawler.next(), null);
    const live = new CommunityCrawler([0, 5, 1], { capacity: 2 });
    assert.equal(live.next(), 0);
    assert.equal(live.next(), 5);
    assert.equal(live.next(), null);
    live.failed(5);
    assert.equal(live.next(), 1);
    assert.equal(live.isFull, true);
  });

  it('drops the lowest-priority queued documents past queueCapacity, latest first among equals', () => {
    // after 0: queue {5 (seed), 1, 2} > 2 → 2 dropped (0 like 1, queued later); after 1: {6 (0), 7 (1/k)}
    const { order, crawler } = crawl({ queueCapacity: 2 });
    assert.deepEqual(order, [0, 5, 1, 7, 6]);
    assert.equal(crawler.droppedCount, 1);
  });

  it('skips what a shared seen set says another crawler has', () => {
    const taken = new Set([1]);
    const { order, crawler } = crawl({ isTaken: (p) => taken.has(p) });
    assert.deepEqual(order, [0, 5, 2, 6]);
    assert.equal(crawler.droppedCount, 1);
  });

  it('refuses a page retrieved twice', () => {
    const crawler = new CommunityCrawler([0]);
    crawler.retrieved(0, [1]);
    assert.throws(() => crawler.retrieved(0, [1]), RangeError);
  });

  it('is deterministic and stays in a separated community', () => {
    const { graph } = ringCommunityGraph({ communities: 4, size: 50, k: 8, o: 0, seed: 1 });
    const a = crawlGraph(graph, [60], { capacity: 40, membership: { spreading: {} } });
    const b = crawlGraph(graph, [60], { capacity: 40, membership: { spreading: {} } });
    assert.deepEqual(a, b);
    assert.equal(a.length, 40);
    assert.ok(a.every((p) => p >= 50 && p < 100));
  });
});
