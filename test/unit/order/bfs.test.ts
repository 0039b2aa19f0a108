/**
 * Breadth-first ordering (src/order/bfs.ts): the policy on its own, then small fixture webs crawled
 * through a MemoryFrontier on a manual clock, with the expected crawl order drawn next to each graph.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BFS_PRIORITY, BreadthFirstPolicy } from '../../../src/order/bfs.js';
import { crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

describe('BreadthFirstPolicy', () => {
  test('spec is { id: bfs, params: {} }', () => {
    assert.deepEqual(new BreadthFirstPolicy().spec, { id: 'bfs', params: {} });
  });

  test('every URL gets the same priority, whatever is known about it', () => {
    const policy = new BreadthFirstPolicy();
    const priorities = [
      policy.prioritize({ id: 0, url: 'http://a.test/', depth: 0 }),
      policy.prioritize({ id: 1, url: 'http://a.test/deep/page', depth: 7, fromId: 2, anchorText: 'computer science' }),
      policy.prioritize({ id: 3, url: 'http://b.test/', depth: 1, backlinkHint: 500, priorityHint: 99 }),
    ];
    assert.deepEqual(priorities, [BFS_PRIORITY, BFS_PRIORITY, BFS_PRIORITY]);
  });

  test('never re-prioritizes', () => {
    const policy = new BreadthFirstPolicy();
    const changes = policy.observe({
      id: 0,
      url: 'http://a.test/',
      depth: 0,
      outIds: [1, 1],
      outUrls: ['http://a.test/x', 'http://a.test/x'],
      title: 'x',
      text: 'x',
    });
    assert.equal(changes.length, 0);
    assert.ok(Object.isFrozen(changes));
  });

  test('one host, no politeness pressure: the crawl is level by level, in discovery order', () => {
    //            /                depth 0 (seed)
    //          /   \
    //        /a     /b            depth 1      (/b also links back to /)
    //       /  \      \
    //    /a1    /a2    /b1        depth 2
    //      \          /
    //       ▼        ▼
    //          /x                 depth 3      (queued once, when /a1 is fetched; /b1's link is a duplicate)
    //
    // Expected order: / /a /b /a1 /a2 /b1 /x
    const s = 'http://s.test';
    const web: Web = {
      [`${s}/`]: [`${s}/a`, `${s}/b`],
      [`${s}/a`]: [`${s}/a1`, `${s}/a2`],
      [`${s}/b`]: [`${s}/b1`, `${s}/`],
      [`${s}/a1`]: [`${s}/x`],
      [`${s}/b1`]: [`${s}/x`],
    };
    const order = crawlFixture(web, [`${s}/`], new BreadthFirstPolicy(), { frontier: { minDelayMs: 0, delayFactor: 0 }, fetchMs: 10 });
    assert.deepEqual(
      order.map((u) => u.slice(s.length)),
      ['/', '/a', '/b', '/a1', '/a2', '/b1', '/x'],
    );
  });

  test('several hosts, no delay: depth order holds across hosts too', () => {
    //   a.test/ ──▶ b.test/ ──▶ b.test/2 ──▶ a.test/3
    //      │          └──────▶ a.test/2
    //      └──────▶ c.test/
    //
    // depth 0: a/   depth 1: b/, c/   depth 2: b/2, a/2   depth 3: a/3
    const web: Web = {
      'http://a.test/': ['http://b.test/', 'http://c.test/'],
      'http://b.test/': ['http://b.test/2', 'http://a.test/2'],
      'http://b.test/2': ['http://a.test/3'],
    };
    const order = crawlFixture(web, ['http://a.test/'], new BreadthFirstPolicy(), {
      frontier: { minDelayMs: 0, delayFactor: 0 },
      fetchMs: 10,
    });
    assert.deepEqual(order, [
      'http://a.test/',
      'http://b.test/',
      'http://c.test/',
      'http://b.test/2',
      'http://a.test/2',
      'http://a.test/3',
    ]);
  });

  test('with politeness, a ready host may go before an older URL of a host in its delay', () => {
    //   a.test/ ──▶ a.test/1, a.test/2, b.test/1       (discovered in this order)
    //
    // Fetches take 100 ms; a's gap is max(1000, 500) = 1000 ms.
    //   t=0     a/      (a ready again at 1100)
    //   t=100   b/1     a/1 is older but a is in its delay; b is free
    //   t=1100  a/1     (a ready again at 2200)
    //   t=2200  a/2
    const web: Web = { 'http://a.test/': ['http://a.test/1', 'http://a.test/2', 'http://b.test/1'] };
    const order = crawlFixture(web, ['http://a.test/'], new BreadthFirstPolicy(), { frontier: {}, fetchMs: 100 });
    assert.deepEqual(order, ['http://a.test/', 'http://b.test/1', 'http://a.test/1', 'http://a.test/2']);
  });

  test('is deterministic, ties broken by discovery order, not by URL: two crawls give the order drawn', () => {
    //   a.test/ ──▶ c.test/, a.test/z, b.test/      (discovered in this order)
    //   c.test/ ──▶ a.test/m, b.test/1
    //   b.test/ ──▶ c.test/3, a.test/z (again)
    //
    // Fetches take 250 ms; a host's gap is max(1000, 5 × 250) = 1250 ms after its fetch ends.
    //   t=0     a/      a ready at 1500
    //   t=250   c/      c/ and b/ are both ready: c/ was found first (by URL, b/ would go first)
    //   t=500   b/
    //   t=1500  a/z     found before a/m (by URL, a/m would go first)
    //   t=1750  c/3
    //   t=2000  b/1
    //   t=3000  a/m
    const web: Web = {
      'http://a.test/': ['http://c.test/', 'http://a.test/z', 'http://b.test/'],
      'http://c.test/': ['http://a.test/m', 'http://b.test/1'],
      'http://b.test/': ['http://c.test/3', 'http://a.test/z'],
    };
    const run = (): string[] => crawlFixture(web, ['http://a.test/'], new BreadthFirstPolicy(), { frontier: {}, fetchMs: 250 });
    assert.deepEqual(run(), run());
    assert.deepEqual(run(), [
      'http://a.test/',
      'http://c.test/',
      'http://b.test/',
      'http://a.test/z',
      'http://c.test/3',
      'http://b.test/1',
      'http://a.test/m',
    ]);
  });
});
