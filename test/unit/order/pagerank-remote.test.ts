/**
 * IR′ with links other nodes saw (src/order/pagerank.ts, "Links other nodes saw"; SPEC §4.5, Cho's
 * remedy for hash partitioning): a graph split across two nodes, each fetching only its own pages.
 *
 * - Given the shares a converged sender would send, the owner's IR′/b on its pages is the full
 *   graph's, exactly.
 * - Crawled as a collaborative crawl runs it (shares taken when the linking page is fetched,
 *   summaries exchanged every few fetches), each node's ranking of its pages agrees with the full
 *   graph's PageRank far better than without summaries.
 * - The small case drawn below: a URL linked only from the other node's pages goes from last to first.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { csrFromEdges } from '../../../src/eval/csr.js';
import { kendallTauB } from '../../../src/eval/kendall-tau.js';
import { pageRank } from '../../../src/eval/pagerank.js';
import { PageRankPolicy, type PageRankPolicyOptions } from '../../../src/order/pagerank.js';
import { Rng } from '../../../src/core/prng.js';

const EXACT: PageRankPolicyOptions = { tolerance: 1e-13, maxIterations: 10_000, sliceWork: 0, minChange: 0, recomputeEvery: 1 };
const D = 0.9;

/** A graph where every page has out-links (no dangling page), so IR = b·y with b = 1 − d. */
function randomGraph(n: number, seed: number): number[][] {
  const rng = new Rng(seed, 0, 0);
  const out: number[][] = [];
  for (let u = 0; u < n; u++) {
    const k = 1 + Math.floor(rng.next() * 4);
    const targets = new Set<number>();
    // Skewed targets: low ids are popular, so PageRank has a clear order to agree with.
    while (targets.size < k) {
      const t = Math.floor(n * rng.next() ** 2);
      if (t !== u) targets.add(t);
    }
    out.push([...targets]);
  }
  return out;
}

function fullRanks(out: readonly (readonly number[])[]): Float64Array {
  const src: number[] = [];
  const dst: number[] = [];
  out.forEach((ts, u) => ts.forEach((t) => (src.push(u), dst.push(t))));
  return pageRank(csrFromEdges(out.length, Uint32Array.from(src), Uint32Array.from(dst)), {
    damping: D,
    tolerance: 1e-13,
    maxIterations: 10_000,
  });
}

/** One node of a two-node crawl: its policy, and the summary it is building for the other node. */
class Node {
  readonly policy = new PageRankPolicy(EXACT);
  readonly pending = new Map<number, { count: number; share: number }>();
  constructor(readonly owns: (page: number) => boolean) {}

  /** Fetches `page`: observe, then counts its links to the other node's pages with the page's share (as the router does). */
  fetch(page: number, out: readonly number[], isSummarizing: boolean): void {
    this.policy.observe({ id: page, url: '', depth: 0, outIds: out });
    for (const t of out) {
      if (!this.owns(t)) this.policy.prioritize({ id: t, url: '', depth: 1, fromId: page });
      if (this.owns(t) || !isSummarizing) continue;
      const e = this.pending.get(t) ?? { count: 0, share: 0 };
      e.count++;
      e.share += this.policy.rankShare(page);
      this.pending.set(t, e);
    }
  }

  /** Sends the summary to `to` and starts a new one. */
  sendTo(to: Node): void {
    const ids = [...this.pending.keys()];
    to.policy.observeRemoteLinks(
      ids,
      ids.map((id) => (this.pending.get(id) as { count: number }).count),
      ids.map((id) => (this.pending.get(id) as { share: number }).share),
    );
    this.pending.clear();
  }
}

/** Crawls `out` split by parity of the page id, both nodes fetching in id order, summaries every `every` fetches (0 = never). */
function crawlSplit(out: readonly (readonly number[])[], every: number): Node[] {
  const nodes = [new Node((p) => p % 2 === 0), new Node((p) => p % 2 === 1)];
  const [a, b] = nodes as [Node, Node];
  for (let u = 0; u < out.length; u++) {
    const node = u % 2 === 0 ? a : b;
    node.fetch(u, out[u] as number[], every > 0);
    if (every > 0 && (u + 1) % every === 0) {
      a.sendTo(b);
      b.sendTo(a);
    }
  }
  if (every > 0) {
    a.sendTo(b);
    b.sendTo(a);
  }
  // One more fetch each (of a page without links) lets a last recomputation take every summary in.
  a.policy.observe({ id: out.length, url: '', depth: 0, outIds: [] });
  b.policy.observe({ id: out.length + 1, url: '', depth: 0, outIds: [] });
  return nodes;
}

/** τ-b between a node's IR′ estimates of its pages and the full graph's PageRank of them. */
function tauOf(node: Node, out: readonly (readonly number[])[], truth: Float64Array): number {
  const pages = out.map((_, u) => u).filter((u) => node.owns(u));
  return kendallTauB(
    pages.map((u) => node.policy.estimate(u)),
    pages.map((u) => truth[u] as number),
  ).tau as number;
}

describe('PageRankPolicy with link summaries', () => {
  test('given a converged sender’s shares, the owner’s IR′/b on its pages is the full graph’s', () => {
    const out = randomGraph(40, 7);
    const truth = fullRanks(out);
    // No dangling page: IR = (1 − d) · y.
    const y = Array.from(truth, (r) => r / (1 - D));
    const mine = (p: number): boolean => p < 20;
    const policy = new PageRankPolicy(EXACT);
    const summary = new Map<number, { count: number; share: number }>();
    for (let u = 0; u < out.length; u++) {
      const targets = out[u] as number[];
      if (mine(u)) {
        policy.observe({ id: u, url: '', depth: 0, outIds: targets });
        continue;
      }
      for (const t of targets) {
        if (!mine(t)) continue;
        const e = summary.get(t) ?? { count: 0, share: 0 };
        e.count++;
        e.share += (y[u] as number) / targets.length;
        summary.set(t, e);
      }
    }
    const ids = [...summary.keys()];
    policy.observeRemoteLinks(
      ids,
      ids.map((t) => (summary.get(t) as { count: number }).count),
      ids.map((t) => (summary.get(t) as { share: number }).share),
    );
    assert.equal(
      policy.remoteLinks,
      [...summary.values()].reduce((s, e) => s + e.count, 0),
    );
    policy.observe({ id: 1000, url: '', depth: 0, outIds: [] });
    for (let u = 0; u < 20; u++) {
      const got = policy.estimate(u) / policy.base;
      assert.ok(Math.abs(got - (y[u] as number)) < 1e-6, `page ${u}: y ${got} vs ${y[u]}`);
    }
  });

  test('a crawl split across two nodes ranks its pages as the full graph does, and without summaries it does not', () => {
    for (const seed of [3, 11, 29]) {
      const out = randomGraph(300, seed);
      const truth = fullRanks(out);
      const without = crawlSplit(out, 0);
      const withSummaries = crawlSplit(out, 25);
      for (let k = 0; k < 2; k++) {
        const tw = tauOf(withSummaries[k] as Node, out, truth);
        const to = tauOf(without[k] as Node, out, truth);
        // Shares are taken when the linking page is fetched, so early pages send low ones: τ 0.71–0.81 (without: 0.50–0.56).
        assert.ok(tw > 0.65, `seed ${seed} node ${k}: τ with summaries ${tw.toFixed(3)}`);
        assert.ok(tw > to + 0.15, `seed ${seed} node ${k}: τ with ${tw.toFixed(3)}, without ${to.toFixed(3)}`);
      }
      assert.equal((without[0] as Node).policy.remoteLinks, 0);
      assert.ok((withSummaries[0] as Node).policy.remoteLinks > 0);
    }
  });

  //   Node A owns a0..a3 (ids 0–3), node B owns b0..b4 (ids 10–14).
  //     a0 → a1, a2          (A's own links)
  //     b0..b4 → a3, b0 → b1 (B's links: a3 is linked from five pages A never fetches)
  //   Full graph: a3 > a1 = a2. A alone ranks a3 (received as a bare URL) last.
  test('a URL linked only from the other node’s pages moves from last to first', () => {
    const run = (isSummarized: boolean): number[] => {
      const a = new PageRankPolicy({ ...EXACT, minChange: 0 });
      a.prioritize({ id: 0, url: '', depth: 0 });
      a.observe({ id: 0, url: '', depth: 0, outIds: [1, 2] });
      const given = new Map<number, number>();
      given.set(1, a.prioritize({ id: 1, url: '', depth: 1, fromId: 0 }));
      given.set(2, a.prioritize({ id: 2, url: '', depth: 1, fromId: 0 }));
      given.set(3, a.prioritize({ id: 3, url: '', depth: 1 }));
      if (isSummarized) {
        const changes = a.observeRemoteLinks([3], [5], [5 * 0.5]);
        for (let i = 0; i < changes.length; i++) given.set(changes.ids[i] as number, changes.priorities[i] as number);
      }
      return [1, 2, 3].sort((x, y) => (given.get(y) as number) - (given.get(x) as number));
    };
    assert.equal(run(false).at(-1), 3);
    assert.equal(run(true)[0], 3);
  });

  test('a summary without shares counts each link as 1/c̄, and bad entries are ignored', () => {
    const p = new PageRankPolicy(EXACT);
    p.observe({ id: 0, url: '', depth: 0, outIds: [1, 2, 3, 4] });
    p.observeRemoteLinks([5, -1, 6], [2, 3, Number.NaN]);
    // c̄ = 4: two links carry 2 · 1/4 in units of b, d · b · 0.5 added at once to a new URL's b.
    assert.ok(Math.abs(p.estimate(5) - p.base * (1 + D * 0.5)) < 1e-12, `${p.estimate(5)}`);
    assert.equal(p.estimate(6), 0);
    assert.equal(p.remoteLinks, 2);
  });

  test('rankShare is y/c of a fetched page with links, 0 otherwise', () => {
    const p = new PageRankPolicy(EXACT);
    p.observe({ id: 0, url: '', depth: 0, outIds: [1, 2, 2] });
    p.observe({ id: 3, url: '', depth: 0, outIds: [] });
    assert.ok(Math.abs(p.rankShare(0) - p.estimate(0) / p.base / 2) < 1e-12);
    assert.equal(p.rankShare(1), 0);
    assert.equal(p.rankShare(3), 0);
    assert.equal(p.rankShare(99), 0);
  });
});
