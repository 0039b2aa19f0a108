/**
 * Forward-link ordering with pages other nodes fetched (src/order/forward-links.ts, "Pages other
 * nodes fetched"; SPEC §4.5, Cho's remedy for hash partitioning): link summaries carry the largest
 * out-degree of the sender's pages linking to each URL, and the owner takes it into O(u) by max.
 *
 * - The small case: a summary raises a queued URL, merges by max, ignores counts and shares, and is
 *   kept for a URL queued later.
 * - A graph split across two nodes, each fetching only its own pages and sending summaries every few
 *   fetches: every URL still queued has, on the node that owns it, the priority a single node that
 *   fetched every one of those pages gives it. Without summaries some have less.
 * - A weighted combination passes out-degrees on and tells its component's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../../../src/core/prng.js';
import { ForwardLinksPolicy } from '../../../src/order/forward-links.js';
import { canObserveRemoteLinks, canTellOutDegree, type PriorityChanges } from '../../../src/order/policy.js';
import { LocationPolicy } from '../../../src/order/location.js';
import { WeightedPolicy } from '../../../src/order/weighted.js';
import { changesOf } from '../../helpers/order.js';

/** A graph whose out-degrees range from 1 to 12, targets skewed towards low ids. */
function randomGraph(n: number, seed: number): number[][] {
  const rng = new Rng(seed, 0, 0);
  const out: number[][] = [];
  for (let u = 0; u < n; u++) {
    const k = 1 + Math.floor(rng.next() * 12);
    const targets: number[] = [];
    // Repeats allowed: a page's repeated links count once in its out-degree.
    for (let i = 0; i < k; i++) targets.push(Math.floor(n * rng.next() ** 2));
    out.push(targets);
  }
  return out;
}

/** A policy and the priority the frontier holds for each URL it queued and has not fetched. */
class Queue {
  readonly held = new Map<number, number>();
  private readonly known = new Set<number>();
  constructor(readonly policy: ForwardLinksPolicy) {}

  /** Queues `id` unless met before. */
  discover(id: number, fromId?: number): void {
    if (this.known.has(id)) return;
    this.known.add(id);
    this.held.set(id, this.policy.prioritize({ id, url: '', depth: 1, ...(fromId === undefined ? {} : { fromId }) }));
  }

  /** Observes a fetched page: it leaves the queue, its changes are applied. */
  fetch(page: number, out: readonly number[]): void {
    this.known.add(page);
    this.held.delete(page);
    this.apply(this.policy.observe({ id: page, url: '', depth: 0, outIds: out }));
  }

  apply(changes: PriorityChanges): void {
    for (let i = 0; i < changes.length; i++) {
      const id = changes.ids[i] as number;
      assert.ok(this.held.has(id), `a change for ${id}, which is not queued`);
      this.held.set(id, changes.priorities[i] as number);
    }
  }
}

/**
 * Fetches `order` on one node and on two (page u owned by node u mod 2, each fetching its own),
 * the two sending each other summaries every `every` fetches (0: never); returns the queues.
 */
function crawl(out: readonly (readonly number[])[], order: readonly number[], every: number): { single: Queue; nodes: Queue[] } {
  const single = new Queue(new ForwardLinksPolicy());
  const nodes = [new Queue(new ForwardLinksPolicy()), new Queue(new ForwardLinksPolicy())];
  // Per node, the summary it is building for the other: URL -> largest out-degree of its linking pages.
  const pending = [new Map<number, number>(), new Map<number, number>()];
  const send = (k: number): void => {
    const to = nodes[1 - k] as Queue;
    const ids = [...(pending[k] as Map<number, number>).keys()];
    const degrees = ids.map((id) => (pending[k] as Map<number, number>).get(id) as number);
    to.apply(
      to.policy.observeRemoteLinks(
        ids,
        ids.map(() => 1),
        undefined,
        degrees,
      ),
    );
    pending[k]?.clear();
  };
  order.forEach((page, i) => {
    const links = out[page] as readonly number[];
    single.fetch(page, links);
    for (const t of links) single.discover(t, page);
    const k = page % 2;
    const node = nodes[k] as Queue;
    node.fetch(page, links);
    for (const t of links) {
      if (t % 2 === k) {
        node.discover(t, page);
        continue;
      }
      // The URL goes to its owner, and the link into the summary with the page's out-degree.
      (nodes[1 - k] as Queue).discover(t);
      const summary = pending[k] as Map<number, number>;
      summary.set(t, Math.max(summary.get(t) ?? 0, node.policy.outDegree(page)));
    }
    if (every > 0 && i % every === every - 1) [0, 1].forEach(send);
  });
  if (every > 0) [0, 1].forEach(send);
  return { single, nodes };
}

describe('ForwardLinksPolicy with link summaries', () => {
  test('a summary raises queued URLs by max, ignores counts and shares, and is kept for URLs queued later', () => {
    const p = new ForwardLinksPolicy();
    assert.ok(canObserveRemoteLinks(p) && canTellOutDegree(p));
    p.observe({ id: 0, url: '', depth: 0, outIds: [1, 2] });
    p.prioritize({ id: 1, url: '', depth: 1, fromId: 0 });
    p.prioritize({ id: 2, url: '', depth: 1, fromId: 0 });
    assert.deepEqual(changesOf(p.observeRemoteLinks([1, 2], [50, 50], [9, 9])), {}, 'no out-degrees: nothing');
    assert.deepEqual(changesOf(p.observeRemoteLinks([1, 2, 3], [1, 1, 1], undefined, [6, 1, 4])), { 1: 6 });
    assert.deepEqual(changesOf(p.observeRemoteLinks([1], [1], undefined, [5])), {}, 'a smaller one changes nothing');
    assert.deepEqual(changesOf(p.observeRemoteLinks([1], [1], undefined, [6])), {}, 'a repeat changes nothing');
    assert.equal(p.prioritize({ id: 3, url: '', depth: 1 }), 4, 'URL 3, named before it was queued');
    assert.deepEqual(changesOf(p.observe({ id: 9, url: '', depth: 0, outIds: [1, 2, 3, 4, 5, 6, 7] })), { 1: 7, 2: 7, 3: 7 });
    assert.deepEqual([p.estimate(1), p.outDegree(9), p.outDegree(1), p.outDegree(0)], [7, 7, 0, 2]);
  });

  test('skips odd values and URLs it cannot name', () => {
    const p = new ForwardLinksPolicy();
    p.prioritize({ id: 1, url: '', depth: 1 });
    const odd = [Number.NaN, Number.POSITIVE_INFINITY, -3];
    assert.deepEqual(changesOf(p.observeRemoteLinks([1, 1, 1, -1], [1, 1, 1, 1], undefined, [...odd, 8])), {});
    assert.equal(p.estimate(1), 0);
  });

  for (const seed of [1, 2, 3]) {
    test(`two nodes fed the summaries rank their queued URLs as one node seeing every fetched page (seed ${seed})`, () => {
      const n = 300;
      const out = randomGraph(n, seed);
      const rng = new Rng(seed, 1, 0);
      const order = Array.from({ length: n }, (_, i) => i);
      for (let i = n - 1; i > 0; i--) {
        const j = Math.floor(rng.next() * (i + 1));
        [order[i], order[j]] = [order[j] as number, order[i] as number];
      }
      const fetched = order.slice(0, 120);
      const { single, nodes } = crawl(out, fetched, 7);
      assert.ok(single.held.size > 50, `${single.held.size} URLs queued`);
      for (const [u, priority] of single.held) assert.equal((nodes[u % 2] as Queue).held.get(u), priority, `URL ${u}`);
      assert.equal(single.held.size, (nodes[0] as Queue).held.size + (nodes[1] as Queue).held.size);

      const alone = crawl(out, fetched, 0).nodes;
      const lower = [...single.held].filter(([u, priority]) => ((alone[u % 2] as Queue).held.get(u) as number) < priority);
      assert.ok(lower.length > 10, `without summaries ${lower.length} URLs rank lower`);
    });
  }

  test('a weighted combination passes out-degrees on and tells those of its forward-links component', () => {
    const forward = new ForwardLinksPolicy();
    const w = new WeightedPolicy([
      { policy: new LocationPolicy({ slashWeight: 0, suffixWeights: { com: 1 }, keywordWeights: {} }), weight: 100 },
      { policy: forward, weight: 1 },
    ]);
    assert.ok(canTellOutDegree(w));
    w.observe({ id: 0, url: 'http://a.org/', depth: 0, outIds: [1, 2, 3] });
    assert.equal(w.outDegree(0), 3);
    assert.equal(w.prioritize({ id: 1, url: 'http://b.com/', depth: 1, fromId: 0 }), 100 + 3);
    assert.deepEqual(changesOf(w.observeRemoteLinks([1], [1], undefined, [8])), { 1: 108 });
    const none = new WeightedPolicy([{ policy: new LocationPolicy({}), weight: 1 }]);
    none.observe({ id: 0, url: 'http://a.org/', depth: 0, outIds: [1, 2, 3] });
    assert.equal(none.outDegree(0), 0);
  });
});
