/**
 * IR′ ordering (src/order/pagerank.ts): exact agreement with src/eval/pagerank.ts on a fixed graph,
 * recomputation cadence and slicing, one-step increments between recomputations, and the crawl of
 * seed 004 Figure 3 where IR′ avoids the locally dense cluster that traps IB′.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { csrFromEdges } from '../../../src/eval/csr.js';
import { pageRank } from '../../../src/eval/pagerank.js';
import { BacklinkPolicy } from '../../../src/order/backlink.js';
import { OrderParamError } from '../../../src/order/order-params.js';
import { PageRankPolicy, type PageRankPolicyOptions } from '../../../src/order/pagerank.js';
import type { PriorityChanges } from '../../../src/order/policy.js';
import { changesOf, crawlFixture, type FixtureWeb as Web } from '../../helpers/order.js';

const close = (a: number, b: number, what: string): void => assert.ok(Math.abs(a - b) < 1e-9, `${what}: ${a} vs ${b}`);

const EXACT: PageRankPolicyOptions = { tolerance: 1e-13, maxIterations: 10_000, sliceWork: 0, minChange: 0 };

/** Changes as a plain id → priority object. */
//   Fetched pages and their links, in fetch order (4 and 5 are only discovered):
//     0 → 1, 3, 5, 1      (the repeated link to 1 counts once)
//     1 → 2
//     2 → 3
//     3 → 1, 4, 3         (a self-link: no link, as in the truth export and the importance metrics)
const PAGES: readonly (readonly [number, readonly number[]])[] = [
  [0, [1, 3, 5, 1]],
  [1, [2]],
  [2, [3]],
  [3, [1, 4, 3]],
];
const DISTINCT_EDGES: readonly (readonly [number, number])[] = [
  [0, 1],
  [0, 3],
  [0, 5],
  [1, 2],
  [2, 3],
  [3, 1],
  [3, 4],
];

/** Crawls PAGES with the Contract's call order; returns the changes of the last observe. */
function feed(policy: PageRankPolicy): PriorityChanges {
  const queued = new Set<number>([0]);
  policy.prioritize({ id: 0, url: '', depth: 0 });
  let last: PriorityChanges = { length: 0, ids: [], priorities: [] };
  for (const [id, out] of PAGES) {
    last = policy.observe({ id, url: '', depth: 0, outIds: out });
    for (const t of out) {
      if (queued.has(t)) continue;
      queued.add(t);
      policy.prioritize({ id: t, url: '', depth: 1, fromId: id });
    }
  }
  return last;
}

/** The counts of fetched pages at which recomputations ended, over `pages` fetches of pages 0, 1, ... each linking to the next. */
function recomputedAt(policy: PageRankPolicy, pages: number): number[] {
  const at: number[] = [];
  for (let id = 0; id < pages; id++) {
    const before = policy.recomputations;
    policy.observe({ id, url: '', depth: id, outIds: [id + 1] });
    if (policy.recomputations > before) at.push(id + 1);
  }
  return at;
}

describe('PageRankPolicy', () => {
  test('spec names every parameter', () => {
    assert.deepEqual(new PageRankPolicy().spec, {
      id: 'pagerank',
      params: {
        damping: 0.9,
        recomputeEvery: 1000,
        recomputeGrowth: 0.1,
        tolerance: 1e-4,
        maxIterations: 3,
        sliceWork: 2_000_000,
        minChange: 0.01,
      },
    });
    assert.deepEqual(new PageRankPolicy().needs, { ids: true, urls: false, anchors: false, text: false });
  });

  test('after a recomputation, IR′ equals src/eval/pagerank.ts on the discovered graph (unfetched pages dangling)', () => {
    const policy = new PageRankPolicy({ ...EXACT, recomputeEvery: PAGES.length });
    feed(policy);
    assert.equal(policy.recomputations, 1);
    const src = Uint32Array.from(DISTINCT_EDGES, (e) => e[0]);
    const dst = Uint32Array.from(DISTINCT_EDGES, (e) => e[1]);
    const expected = pageRank(csrFromEdges(6, src, dst), { tolerance: 1e-14, maxIterations: 10_000 });
    for (let id = 0; id < 6; id++) {
      assert.ok(
        Math.abs(policy.estimate(id) - (expected[id] as number)) < 1e-9,
        `IR′(${id}) = ${policy.estimate(id)}, eval says ${expected[id]}`,
      );
    }
    assert.equal(policy.estimate(99), 0);
  });

  test('a recomputation returns the new IR′/b of the queued URLs only', () => {
    const policy = new PageRankPolicy({ ...EXACT, recomputeEvery: PAGES.length });
    const changes = changesOf(feed(policy));
    // Fetched: 0, 1, 2, 3; 4 is prioritized only after the observe of 3, so the one queued URL is 5.
    assert.deepEqual(Object.keys(changes).map(Number), [5]);
    assert.ok(policy.base > 0.1 && policy.base < 1, `b = ${policy.base}`);
    close(changes[5] as number, policy.estimate(5) / policy.base, 'priority of 5');
    // 5's only in-link is from 0, which links to 3 URLs: IR′(5) = b + d·IR′(0)/3.
    close(policy.estimate(5), policy.base + (0.9 * policy.estimate(0)) / 3, 'IR′(5)');
    // A URL nobody links to gets IR′ = b, priority 1.
    assert.equal(policy.prioritize({ id: 50, url: '', depth: 0 }), 1);
  });

  test('priorities do not drift with b: a change of b alone re-prioritizes nothing', () => {
    //   0 → 1 (queued)   then pages 10, 11, 12 without links are fetched: b changes, 1's links do not.
    const policy = new PageRankPolicy({ recomputeEvery: 1, sliceWork: 0, tolerance: 1e-13, maxIterations: 10_000 });
    policy.prioritize({ id: 0, url: '', depth: 0 });
    policy.observe({ id: 0, url: '', depth: 0, outIds: [1] });
    policy.prioritize({ id: 1, url: '', depth: 1, fromId: 0 });
    for (const id of [10, 11, 12]) policy.prioritize({ id, url: '', depth: 0 });
    const before = policy.base;
    const after: number[] = [];
    for (const id of [10, 11, 12]) {
      assert.equal(policy.observe({ id, url: '', depth: 0, outIds: [] }).length, 0, `fetch of ${id}`);
      after.push(policy.base);
    }
    assert.ok(
      after.every((b) => Math.abs(b - before) > 1e-3),
      `b moved: ${before} → ${after.join(', ')}`,
    );
  });

  test('recomputes every recomputeEvery fetched pages; a re-fetched page does not count', () => {
    const policy = new PageRankPolicy({ recomputeEvery: 2, sliceWork: 0 });
    policy.observe({ id: 0, url: '', depth: 0, outIds: [1] });
    assert.equal(policy.recomputations, 0);
    policy.observe({ id: 0, url: '', depth: 0, outIds: [1] });
    assert.equal(policy.recomputations, 0);
    policy.observe({ id: 1, url: '', depth: 1, outIds: [0] });
    assert.equal(policy.recomputations, 1);
    policy.observe({ id: 2, url: '', depth: 1, outIds: [] });
    policy.observe({ id: 3, url: '', depth: 1, outIds: [] });
    assert.equal(policy.recomputations, 2);
    assert.ok(policy.lastRecomputationIterations >= 1);
  });

  test('the schedule: the next recomputation once the new fetches reach max(recomputeEvery, ⌈recomputeGrowth · F⌉)', () => {
    // F = pages fetched when the last recomputation started (0 before the first). With 2 and 0.5:
    //   F = 0 → due after max(2, 0) = 2: at 2;  F = 2 → +max(2, 1) = 2: at 4;  F = 4 → +2: at 6;
    //   F = 6 → +3: at 9;  F = 9 → +⌈4.5⌉ = 5: at 14;  F = 14 → +7: at 21;  F = 21 → +⌈10.5⌉ = 11: at 32.
    assert.deepEqual(
      recomputedAt(new PageRankPolicy({ recomputeEvery: 2, recomputeGrowth: 0.5, sliceWork: 0 }), 40),
      [2, 4, 6, 9, 14, 21, 32],
    );
    // Growth 0: a fixed interval.
    assert.deepEqual(recomputedAt(new PageRankPolicy({ recomputeEvery: 3, recomputeGrowth: 0, sliceWork: 0 }), 14), [3, 6, 9, 12]);
  });

  test('the default schedule: every 1,000 fetches up to 10,000 fetched pages, then every 10 % more', () => {
    const every1000 = Array.from({ length: 10 }, (_, i) => 1000 * (i + 1));
    // 11,000 = 10,000 + 10 % of 10,000; 12,100 = 11,000 + 1,100; ...; 16,106 = 14,641 + ⌈1,464.1⌉; ...
    const growing = [11_000, 12_100, 13_310, 14_641, 16_106, 17_717, 19_489, 21_438, 23_582, 25_941, 28_536, 31_390, 34_529, 37_982];
    assert.deepEqual(recomputedAt(new PageRankPolicy(), 40_000), [...every1000, ...growing]);
  });

  test('between recomputations, a new link adds d·IR′(P)/c_P to its target at once', () => {
    const policy = new PageRankPolicy({ recomputeEvery: 1000 });
    // Before any recomputation every node starts at 1 (the paper's starting point).
    assert.equal(policy.prioritize({ id: 0, url: '', depth: 0 }), 1);
    const changes = changesOf(policy.observe({ id: 0, url: '', depth: 0, outIds: [1, 2, 1, 2] }));
    assert.deepEqual(changes, {}, 'nothing queued yet: no change');
    // 0 links to 2 distinct URLs: each gets 1 + 0.9 · 1 / 2.
    assert.equal(policy.prioritize({ id: 1, url: '', depth: 1, fromId: 0 }), 1.45);
    assert.equal(policy.prioritize({ id: 2, url: '', depth: 1, fromId: 0 }), 1.45);
    // 1 links to 2, which is queued: it rises by 0.9 · 1.45 / 1 and is returned as a change.
    const next = changesOf(policy.observe({ id: 1, url: '', depth: 1, outIds: [2] }));
    assert.deepEqual(Object.keys(next).map(Number), [2]);
    assert.ok(Math.abs((next[2] as number) - (1.45 + 0.9 * 1.45)) < 1e-12);
  });

  test('a sliced recomputation ends later but gives the same ranks as one done at once', () => {
    const options: PageRankPolicyOptions = { recomputeEvery: PAGES.length, tolerance: 0, maxIterations: 20, minChange: 0 };
    const atOnce = new PageRankPolicy({ ...options, sliceWork: 0 });
    feed(atOnce);
    const sliced = new PageRankPolicy({ ...options, sliceWork: 5 });
    feed(sliced);
    assert.equal(sliced.recomputations, 0, 'the first slice cannot finish 20 iterations');
    // More fetched pages without links: they add nodes, not links, so the snapshot's ranks are unchanged.
    let extra = 0;
    for (let id = 100; sliced.recomputations === 0 && id < 1000; id++, extra++) sliced.observe({ id, url: '', depth: 2, outIds: [] });
    assert.equal(sliced.recomputations, 1);
    assert.ok(extra > 10, `finished after ${extra} more fetches`);
    for (let id = 0; id < 6; id++) assert.ok(Math.abs(sliced.estimate(id) - atOnce.estimate(id)) < 1e-12, `IR′(${id})`);
  });

  test('minChange holds back changes smaller than that fraction', () => {
    const run = (minChange: number): number => {
      const policy = new PageRankPolicy({ recomputeEvery: 1000, minChange });
      policy.prioritize({ id: 0, url: '', depth: 0 });
      policy.observe({ id: 0, url: '', depth: 0, outIds: Array.from({ length: 1000 }, (_, i) => i + 1) });
      policy.prioritize({ id: 1, url: '', depth: 1, fromId: 0 });
      // Page 2 (IR′ ≈ 1.0009) links to 1 and 999 other URLs: 1 gains 0.9 · 1.0009 / 1000, below 1e-3 of its IR′.
      return policy.observe({ id: 2, url: '', depth: 1, outIds: Array.from({ length: 1000 }, (_, i) => i + 1) }).length;
    };
    assert.equal(run(0), 1);
    assert.equal(run(0.001), 0);
  });

  test('rejects bad parameters', () => {
    assert.throws(() => new PageRankPolicy({ damping: 1 }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ damping: Number.NaN }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ recomputeEvery: 0 }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ recomputeEvery: 1.5 }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ recomputeGrowth: -0.1 }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ recomputeGrowth: Number.NaN }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ tolerance: -1 }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ maxIterations: 0 }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ sliceWork: -1 }), OrderParamError);
    assert.throws(() => new PageRankPolicy({ minChange: 2 }), OrderParamError);
  });

  test('seed 004 Figure 3: IB′ crawls the dense cluster first, IR′ reaches page 2 first', () => {
    //   /  ──▶ /1 ──▶ /a1, /a2, /a3        cluster A: every /ai links to the other two
    //   │
    //   └───▶ /h ──▶ /2                     /2 has one in-link, from the well-ranked /h
    //
    // IB′: /a1 is fetched before /2 (tie at 1 backlink, /a1 found first); then each A page it
    //      fetches raises the others to 2, 3 backlinks, and /2 (1 backlink) waits behind all of A.
    //      Order: / /1 /h /a1 /a2 /a3 /2
    // IR′: /2 gets d·IR′(/h)/1, an A page only d·IR′(/1)/3, and IR′(/h) = IR′(/1): /2 goes first.
    //      Order: / /1 /h /2 /a1 /a2 /a3
    const s = 'http://s.test';
    const cluster = [`${s}/a1`, `${s}/a2`, `${s}/a3`];
    const web: Web = {
      [`${s}/`]: [`${s}/1`, `${s}/h`],
      [`${s}/1`]: cluster,
      [`${s}/h`]: [`${s}/2`],
      ...Object.fromEntries(cluster.map((a) => [a, cluster.filter((b) => b !== a)])),
    };
    const path = (order: string[]): string[] => order.map((u) => u.slice(s.length));
    assert.deepEqual(path(crawlFixture(web, [`${s}/`], new BacklinkPolicy())), ['/', '/1', '/h', '/a1', '/a2', '/a3', '/2']);
    const pagerank = new PageRankPolicy({ recomputeEvery: 1, sliceWork: 0, tolerance: 1e-12, maxIterations: 1000 });
    assert.deepEqual(path(crawlFixture(web, [`${s}/`], pagerank)), ['/', '/1', '/h', '/2', '/a1', '/a2', '/a3']);
  });

  test('is deterministic', () => {
    const run = (): number[] => {
      const policy = new PageRankPolicy({ recomputeEvery: 2, sliceWork: 3 });
      const out: number[] = [];
      feed(policy);
      for (let id = 0; id < 8; id++) out.push(policy.estimate(id));
      return out;
    };
    assert.deepEqual(run(), run());
  });
});
