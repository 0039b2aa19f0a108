/**
 * Breadth-first ordering (src/order/bfs.ts): the policy on its own, then small fixture webs crawled
 * through a MemoryFrontier on a manual clock, with the expected crawl order drawn next to each graph.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BFS_PRIORITY, BreadthFirstPolicy } from '../../../src/order/bfs.js';
import type { OrderingPolicy } from '../../../src/order/policy.js';
import { MemoryFrontier, type MemoryFrontierOptions } from '../../../src/frontier/memory-frontier.js';

/** A fixture web: page URL -> out-links (anchor text is the link's last path segment). */
type Web = Readonly<Record<string, readonly string[]>>;

/**
 * Crawls `web` from `seed` with one fetch slot: each fetch takes `fetchMs` on a manual clock. The
 * URL-seen test is a Set; links to unknown pages are fetched as pages without links.
 */
function crawl(web: Web, seed: string, policy: OrderingPolicy, options: MemoryFrontierOptions, fetchMs: number): string[] {
  const frontier = new MemoryFrontier(options);
  const clock = { nowMs: 0 };
  const seen = new Set<string>([seed]);
  const depthOf = new Map<string, number>([[seed, 0]]);
  const hostOf = (url: string): string => new URL(url).host;
  frontier.add({ url: seed, host: hostOf(seed), depth: 0, priority: policy.prioritize({ url: seed, depth: 0 }) }, clock.nowMs);
  const order: string[] = [];
  for (let guard = 0; guard < 10_000; guard++) {
    const next = frontier.next(clock.nowMs);
    if (next.kind === 'empty') return order;
    if (next.kind === 'wait') {
      clock.nowMs = next.untilMs;
      continue;
    }
    const { lease } = next;
    order.push(lease.entry.url);
    clock.nowMs += fetchMs;
    const depth = depthOf.get(lease.entry.url) as number;
    const links = (web[lease.entry.url] ?? []).map((url) => ({ url, anchorText: url.split('/').pop() ?? '' }));
    assert.deepEqual(policy.observe({ url: lease.entry.url, depth, links }), []);
    for (const link of links) {
      if (seen.has(link.url)) continue;
      seen.add(link.url);
      depthOf.set(link.url, depth + 1);
      const priority = policy.prioritize({ url: link.url, depth: depth + 1, fromUrl: lease.entry.url, anchorText: link.anchorText });
      frontier.add({ url: link.url, host: hostOf(link.url), depth: depth + 1, priority }, clock.nowMs);
    }
    frontier.complete(lease, { fetchDurationMs: fetchMs }, clock.nowMs);
  }
  assert.fail('the crawl did not finish');
}

describe('BreadthFirstPolicy', () => {
  test('spec is { id: bfs, params: {} }', () => {
    assert.deepEqual(new BreadthFirstPolicy().spec, { id: 'bfs', params: {} });
  });

  test('every URL gets the same priority, whatever is known about it', () => {
    const policy = new BreadthFirstPolicy();
    const priorities = [
      policy.prioritize({ url: 'http://a.test/', depth: 0 }),
      policy.prioritize({ url: 'http://a.test/deep/page', depth: 7, fromUrl: 'http://a.test/deep/', anchorText: 'computer science' }),
      policy.prioritize({ url: 'http://b.test/', depth: 1, backlinkHint: 500, priorityHint: 99 }),
    ];
    assert.deepEqual(priorities, [BFS_PRIORITY, BFS_PRIORITY, BFS_PRIORITY]);
  });

  test('never re-prioritizes', () => {
    const policy = new BreadthFirstPolicy();
    const changes = policy.observe({ url: 'http://a.test/', depth: 0, links: [{ url: 'http://a.test/x' }, { url: 'http://a.test/x' }], title: 'x', text: 'x' });
    assert.deepEqual(changes, []);
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
    const order = crawl(web, `${s}/`, new BreadthFirstPolicy(), { minDelayMs: 0, delayFactor: 0 }, 10);
    assert.deepEqual(order.map((u) => u.slice(s.length)), ['/', '/a', '/b', '/a1', '/a2', '/b1', '/x']);
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
    const order = crawl(web, 'http://a.test/', new BreadthFirstPolicy(), { minDelayMs: 0, delayFactor: 0 }, 10);
    assert.deepEqual(order, ['http://a.test/', 'http://b.test/', 'http://c.test/', 'http://b.test/2', 'http://a.test/2', 'http://a.test/3']);
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
    const order = crawl(web, 'http://a.test/', new BreadthFirstPolicy(), {}, 100);
    assert.deepEqual(order, ['http://a.test/', 'http://b.test/1', 'http://a.test/1', 'http://a.test/2']);
  });

  test('is deterministic: two crawls of the same web give the same order', () => {
    const web: Web = {
      'http://a.test/': ['http://b.test/', 'http://a.test/1', 'http://c.test/'],
      'http://b.test/': ['http://a.test/2', 'http://c.test/1'],
      'http://c.test/': ['http://b.test/3', 'http://a.test/1'],
    };
    const run = (): string[] => crawl(web, 'http://a.test/', new BreadthFirstPolicy(), {}, 250);
    assert.deepEqual(run(), run());
  });
});
