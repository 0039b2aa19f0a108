/**
 * `node --import tsx bench/order.bench.ts`: what the IR′ ordering policy (`src/order/pagerank.ts`)
 * costs in a simulated crawl. Prints figures, asserts none.
 *
 * A synthetic Web graph (default 1,000,000 pages, 10,000,000 links; seeded, the same on every run)
 * is crawled in breadth-first fetch order, as the simulator feeds a policy: `observe` for each
 * fetched page, then `prioritize` for each new out-link; when nothing is left, the next page never
 * reached is taken as a new seed. IR′ is recomputed every 1 % of the crawl (a fixed period:
 * `recomputeGrowth: 0`, so every variant recomputes at the same points). Printed per variant:
 * time spent in `observe` (which carries the recomputations) and `prioritize`, the longest single
 * `observe` (the stall a crawl thread would see), recomputations and iterations, and how far the
 * final estimates are from the exact PageRank of the whole graph (`src/eval/pagerank.ts`).
 *
 * The graph: out-degrees uniform in [0, 2·m/n]; 60 % of links go to one of the next 50 pages (a
 * site's own pages), 40 % to a page drawn with density ∝ x^(−0.6) over the ids (a few very popular
 * pages, low ids, found early).
 *
 * Flags: `--pages N`, `--links M`, `--every K` (default pages/100), `--quick` (100k pages, 1M links),
 * `--variant i` (run only the i-th variant of the table, from 0).
 */
import { parseArgs } from 'node:util';
import type { Csr } from '../src/eval/csr.js';
import { distinctLinks } from '../src/eval/importance.js';
import { pageRank } from '../src/eval/pagerank.js';
import {
  DEFAULT_MIN_CHANGE,
  DEFAULT_PAGERANK_MAX_ITERATIONS,
  DEFAULT_SLICE_WORK,
  PageRankPolicy,
  type PageRankPolicyOptions,
} from '../src/order/pagerank.js';
import { Rng } from '../src/core/prng.js';

/** Seed of the graph's generator (any constant: the graph is the same on every run). */
const GRAPH_SEED = 0x9e3779b9;

function syntheticGraph(n: number, m: number): Csr {
  const rng = new Rng(GRAPH_SEED, 0, 0);
  const rnd = (): number => rng.next();
  const offsets = new Uint32Array(n + 1);
  const targets = new Uint32Array(m);
  const maxDegree = Math.max(1, Math.round((2 * m) / n));
  let e = 0;
  for (let u = 0; u < n; u++) {
    offsets[u] = e;
    const degree = u === n - 1 ? m - e : Math.min(m - e, Math.floor(rnd() * (maxDegree + 1)));
    for (let j = 0; j < degree; j++) {
      const v = rnd() < 0.6 ? (u + 1 + Math.floor(rnd() * 50)) % n : Math.floor(n * rnd() ** 2.5);
      targets[e++] = v;
    }
  }
  offsets[n] = e;
  return { nodeCount: n, offsets, targets };
}

interface Figures {
  readonly label: string;
  readonly totalMs: number;
  readonly cpuMs: number;
  readonly iterations: number;
  readonly observeMs: number;
  readonly prioritizeMs: number;
  readonly maxObserveMs: number;
  readonly recomputations: number;
  readonly changes: number;
  readonly l1PerNode: number;
  readonly topOverlap: number;
  readonly rssMb: number;
}

function crawl(graph: Csr, label: string, options: PageRankPolicyOptions, exact: Float64Array): Figures {
  const { nodeCount: n, offsets, targets } = graph;
  const policy = new PageRankPolicy(options);
  const queue = new Uint32Array(n);
  const discovered = new Uint8Array(n);
  let head = 0;
  let tail = 0;
  let nextSeed = 0;
  let observeMs = 0;
  let prioritizeMs = 0;
  let maxObserveMs = 0;
  let changes = 0;
  let iterations = 0;
  let seenRecomputations = 0;
  const started = performance.now();
  const cpuStart = process.cpuUsage();
  for (let fetched = 0; fetched < n; fetched++) {
    if (head === tail) {
      while (discovered[nextSeed] === 1) nextSeed++;
      discovered[nextSeed] = 1;
      policy.prioritize({ id: nextSeed, url: '', depth: 0 });
      queue[tail++] = nextSeed;
    }
    const u = queue[head++] as number;
    const outIds = targets.subarray(offsets[u] as number, offsets[u + 1] as number);
    const t0 = performance.now();
    changes += policy.observe({ id: u, url: '', depth: 0, outIds }).length;
    const t1 = performance.now();
    observeMs += t1 - t0;
    if (t1 - t0 > maxObserveMs) maxObserveMs = t1 - t0;
    if (policy.recomputations > seenRecomputations) {
      seenRecomputations = policy.recomputations;
      iterations += policy.lastRecomputationIterations;
    }
    for (let i = 0; i < outIds.length; i++) {
      const v = outIds[i] as number;
      if (discovered[v] === 1) continue;
      discovered[v] = 1;
      policy.prioritize({ id: v, url: '', depth: 1, fromId: u });
      queue[tail++] = v;
    }
    prioritizeMs += performance.now() - t1;
  }
  const totalMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  let l1 = 0;
  for (let v = 0; v < n; v++) l1 += Math.abs(policy.estimate(v) - (exact[v] as number));
  return {
    label,
    totalMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    iterations,
    observeMs,
    prioritizeMs,
    maxObserveMs,
    changes,
    recomputations: policy.recomputations,
    l1PerNode: l1 / n,
    topOverlap: topOverlap(exact, (v) => policy.estimate(v), n),
    rssMb: process.memoryUsage().rss / 1e6,
  };
}

/** Share of the exact top 1 % found in the estimated top 1 %. */
function topOverlap(exact: Float64Array, estimate: (v: number) => number, n: number): number {
  const k = Math.max(1, Math.floor(n / 100));
  const ids = Array.from({ length: n }, (_, i) => i);
  const exactTop = new Set(
    ids
      .slice()
      .sort((a, b) => (exact[b] as number) - (exact[a] as number) || a - b)
      .slice(0, k),
  );
  const est = Float64Array.from(ids, estimate);
  const estTop = ids.sort((a, b) => (est[b] as number) - (est[a] as number) || a - b).slice(0, k);
  return estTop.filter((v) => exactTop.has(v)).length / k;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      pages: { type: 'string' },
      links: { type: 'string' },
      every: { type: 'string' },
      variant: { type: 'string' },
      quick: { type: 'boolean', default: false },
    },
  });
  const pages = Number(values.pages ?? (values.quick === true ? 100_000 : 1_000_000));
  const links = Number(values.links ?? (values.quick === true ? 1_000_000 : 10_000_000));
  const every = Number(values.every ?? Math.max(1, Math.round(pages / 100)));
  let t = performance.now();
  const graph = syntheticGraph(pages, links);
  console.log(
    `graph: ${pages.toLocaleString('en')} pages, ${graph.offsets[pages]?.toLocaleString('en')} links, built in ${(performance.now() - t).toFixed(0)} ms`,
  );
  t = performance.now();
  // Repeated links removed, as the policy counts each (source, target) pair once.
  const exact = pageRank(distinctLinks(graph), { tolerance: 1e-10, maxIterations: 500 });
  console.log(`exact PageRank of the whole graph (src/eval/pagerank.ts): ${(performance.now() - t).toFixed(0)} ms`);
  console.log(`recomputation every ${every.toLocaleString('en')} fetches\n`);
  const period = { recomputeEvery: every, recomputeGrowth: 0 };
  const variants: [string, PageRankPolicyOptions][] = [
    [
      `defaults (≤ ${DEFAULT_PAGERANK_MAX_ITERATIONS} iterations, slices of ${DEFAULT_SLICE_WORK / 1e6}M units, minChange ${DEFAULT_MIN_CHANGE * 100} %)`,
      period,
    ],
    ['sliceWork 0: each recomputation in one call', { ...period, sliceWork: 0 }],
    ['maxIterations 10', { ...period, maxIterations: 10 }],
    ['minChange 0: every change returned', { ...period, minChange: 0 }],
  ];
  const chosen = values.variant === undefined ? variants : variants.filter((_, i) => String(i) === values.variant);
  const rows = chosen.map(([label, options]) => crawl(graph, label, options, exact));
  console.log(
    'variant | wall s | CPU s | observe s | prioritize s | longest observe ms | recomputations | iterations | changes | L1/n vs exact | top-1% overlap | RSS MB',
  );
  for (const r of rows) {
    console.log(
      [
        r.label,
        (r.totalMs / 1000).toFixed(2),
        (r.cpuMs / 1000).toFixed(2),
        (r.observeMs / 1000).toFixed(2),
        (r.prioritizeMs / 1000).toFixed(2),
        r.maxObserveMs.toFixed(1),
        r.recomputations,
        r.iterations,
        r.changes.toLocaleString('en'),
        r.l1PerNode.toExponential(2),
        r.topOverlap.toFixed(3),
        r.rssMb.toFixed(0),
      ].join(' | '),
    );
  }
}

main();
