/**
 * The evaluation models of URL ordering (SPEC §3) applied to simulated runs: the true importance
 * of every page, the hot pages, and for each run the PST, PCS, weighted-coverage and (with a buffer
 * size) PBC curves, plus the random and ideal crawlers of each model (`src/eval/ordering-models.ts`).
 *
 * T, the pages the curves count, is by default the pages reachable from the seeds over links the
 * crawl follows (the paper left out the pages its crawler could not reach); importance is computed on
 * the whole graph, then read on those pages.
 *
 * | importance | I(P) | default G |
 * |---|---|---|
 * | `ib` | distinct pages linking to P (`backlinkImportance`) | the top 1 % of the T pages |
 * | `ir` | PageRank, d = 0.9: the truth's own for a test web, else computed | the top 1 % |
 * | `topic` | 1 when P is on `eval.topic`: its true label, or the word in its title or ≥ 10 times in its text | 1 |
 * | `topic-ib` | `topic` and ≥ 5 backlinks (seed 004 §7) | 1 |
 *
 * Weighted coverage always weighs pages by PageRank.
 */
import { ConfigError } from '../core/errors.js';
import { backlinkImportance, pageRankImportance, topicImportance, topicWithBacklinks, type Importance } from '../eval/importance.js';
import {
  firstVisits,
  orderingCurves,
  pbcBaseline,
  pbcCurve,
  pcsBaseline,
  pstBaseline,
  resolveHot,
  weightedCoverageBaseline,
  type BufferLog,
  type Curve,
  type ResolvedHotPages,
} from '../eval/ordering-models.js';
import type { OrderingPolicySpec } from '../order/policy.js';
import { countTermsIn } from '../order/terms.js';
import type { SimGraph } from './graph/sim-graph.js';
import type { SimConfig } from './sim-config.js';

/** What the curves of every run of one simulation are measured against. */
export interface EvalContext {
  /** `reachable` or `all`. */
  readonly scope: SimConfig['eval']['scope'];
  /** T: pages counted. */
  readonly pages: number;
  /** Page id → index among the T pages, −1 outside; null when every page counts. */
  readonly localOf: Int32Array | null;
  /** I(P) of the T pages. */
  readonly importance: Importance;
  /** G. */
  readonly threshold: number;
  /** H: pages with I(P) ≥ G. */
  readonly hotPages: number;
  /** The hot mask, resolved once for every curve of every run. */
  readonly hot: ResolvedHotPages;
  /** 1 for each page reachable from the seeds over followed links (the collaboration metrics' target too). */
  readonly reachable: Uint8Array;
  /** PageRank of the T pages, the weights of weighted coverage. */
  readonly weights: Importance;
  /** B, or null for no PBC. */
  readonly bufferPages: number | null;
  readonly points: number;
}

/** Pages reachable from `seeds` over the links the crawl follows. */
export function reachablePages(graph: SimGraph, seeds: ArrayLike<number>): Uint8Array {
  const { offsets, targets } = graph.csr;
  const nofollow = graph.edgeNofollow;
  const isReached = new Uint8Array(graph.pageCount);
  const stack = new Uint32Array(graph.pageCount);
  let top = 0;
  for (let i = 0; i < seeds.length; i++) {
    const s = seeds[i] as number;
    if (isReached[s] === 1) continue;
    isReached[s] = 1;
    stack[top++] = s;
  }
  while (top > 0) {
    const u = stack[--top] as number;
    const end = offsets[u + 1] as number;
    for (let e = offsets[u] as number; e < end; e++) {
      if (nofollow !== null && nofollow[e] === 1) continue;
      const v = targets[e] as number;
      if (isReached[v] === 0) {
        isReached[v] = 1;
        stack[top++] = v;
      }
    }
  }
  return isReached;
}

/** I(P) over the whole graph for the configured metric. @throws ConfigError when the graph cannot give it. */
export function importanceOfGraph(graph: SimGraph, config: SimConfig['eval'], pagerank: () => Importance): Importance {
  switch (config.importance) {
    case 'ib':
      return backlinkImportance(graph.csr);
    case 'ir':
      return pagerank();
    case 'topic':
      return topicOf(graph, config.topic);
    case 'topic-ib':
      return topicWithBacklinks(topicOf(graph, config.topic), backlinkImportance(graph.csr));
  }
}

/** PageRank of the graph: the truth's own when the graph is a test web's ground truth. */
export function pageRankOfGraph(graph: SimGraph): Importance {
  if (graph.labels !== null) return { spec: { id: 'pagerank', params: { source: 'truth', damping: 0.9 } }, values: graph.labels.pagerank };
  return pageRankImportance(graph.csr);
}

function topicOf(graph: SimGraph, topic: string | null): Importance {
  if (topic === null)
    throw new ConfigError([{ path: 'eval.topic', message: 'a topic importance needs eval.topic (a category or a word)' }]);
  const labels = graph.labels;
  const category = labels?.categories.findIndex((c) => c.toLowerCase() === topic.toLowerCase()) ?? -1;
  if (labels !== null && category >= 0) {
    const values = Float64Array.from(labels.topic, (t) => (t === category ? 1 : 0));
    return { spec: { id: 'topic-label', params: { topic: labels.categories[category] as string } }, values };
  }
  const contentOf = graph.contentOf;
  if (contentOf === null) {
    const known = labels === null ? '' : ` (the truth's categories: ${labels.categories.join(', ')})`;
    throw new ConfigError([
      {
        path: 'eval.topic',
        message:
          `${JSON.stringify(topic)} is no category of this graph${known}, and the graph has no page text ` +
          `to count it in (graph.rebuildContent for a truth export, graph.crawlContent for a crawl)`,
      },
    ]);
  }
  const word = topic.toLowerCase();
  const titles = new Uint32Array(graph.pageCount);
  const bodies = new Uint32Array(graph.pageCount);
  for (let p = 0; p < graph.pageCount; p++) {
    const c = contentOf(p);
    titles[p] = countTermsIn(c.title ?? '', [word])[0] as number;
    bodies[p] = countTermsIn(c.text ?? '', [word])[0] as number;
  }
  return topicImportance(titles, bodies, { topic: word });
}

function restrict(importance: Importance, localOf: Int32Array | null, pages: number): Importance {
  if (localOf === null) return importance;
  const values = new Float64Array(pages);
  for (let p = 0; p < localOf.length; p++) {
    const i = localOf[p] as number;
    if (i >= 0) values[i] = importance.values[p] as number;
  }
  return { spec: importance.spec, values };
}

/**
 * The evaluation context of a simulation: scope, importance, G and H, weights.
 * @throws ConfigError when the importance cannot be computed on this graph.
 */
export function evalContext(graph: SimGraph, seeds: ArrayLike<number>, config: SimConfig['eval']): EvalContext {
  let localOf: Int32Array | null = null;
  let pages = graph.pageCount;
  const reached = reachablePages(graph, seeds);
  if (config.scope === 'reachable') {
    localOf = new Int32Array(graph.pageCount).fill(-1);
    pages = 0;
    for (let p = 0; p < graph.pageCount; p++) if (reached[p] === 1) localOf[p] = pages++;
  }
  let rank: Importance | null = null;
  const pagerank = (): Importance => (rank ??= pageRankOfGraph(graph));
  const importance = restrict(importanceOfGraph(graph, config, pagerank), localOf, pages);
  const isTopic = config.importance === 'topic' || config.importance === 'topic-ib';
  const threshold = config.threshold ?? (isTopic ? 1 : topShareThreshold(importance.values, 0.01));
  const hot = resolveHot({ kind: 'threshold', importance, threshold });
  return {
    scope: config.scope,
    pages,
    localOf,
    importance,
    threshold,
    hotPages: hot.hotPages,
    hot,
    reachable: reached,
    weights: restrict(pagerank(), localOf, pages),
    bufferPages: config.bufferPages,
    points: config.points,
  };
}

/** The smallest value among the top `share` of `values` (at least one value): pages at or above it are hot. */
export function topShareThreshold(values: Float64Array, share: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  const k = Math.max(1, Math.ceil(values.length * share));
  return sorted[sorted.length - k] as number;
}

/** A run's visit order in the T pages: first visits only, pages outside T dropped. */
export function scopedVisitOrder(ctx: EvalContext, pages: Uint32Array, pageCount: number): Uint32Array {
  const first = firstVisits(pages, pageCount).visitOrder;
  const localOf = ctx.localOf;
  if (localOf === null) return first;
  const out: number[] = [];
  for (const p of first) {
    const i = localOf[p] as number;
    if (i >= 0) out.push(i);
  }
  return Uint32Array.from(out);
}

/** A buffer log over page ids, in the T pages (events of pages outside T dropped). */
function scopedBufferLog(ctx: EvalContext, log: BufferLog): BufferLog {
  const localOf = ctx.localOf;
  if (localOf === null) return log;
  const keep: number[] = [];
  for (let e = 0; e < log.ids.length; e++) if ((localOf[log.ids[e] as number] as number) >= 0) keep.push(e);
  return {
    kinds: Uint8Array.from(keep, (e) => log.kinds[e] as number),
    ids: Uint32Array.from(keep, (e) => localOf[log.ids[e] as number] as number),
    estimates: Float64Array.from(keep, (e) => log.estimates[e] as number),
  };
}

/** What {@link runCurves} needs of a run. */
export interface RunForCurves {
  readonly label: string;
  readonly policy: OrderingPolicySpec;
  readonly visitPages: Uint32Array;
  readonly bufferLog: BufferLog | null;
}

/** The curves of one run: PST, PCS, WC and, with a buffer size and a log, PBC. */
export function runCurves(ctx: EvalContext, graph: SimGraph, run: RunForCurves): Curve[] {
  const order = scopedVisitOrder(ctx, run.visitPages, graph.pageCount);
  const options = { policy: run.policy, label: run.label, points: ctx.points };
  const curves = orderingCurves(order, { hot: ctx.hot, importance: ctx.importance, weights: ctx.weights }, options);
  if (ctx.bufferPages !== null && run.bufferLog !== null) {
    curves.push(pbcCurve(scopedBufferLog(ctx, run.bufferLog), ctx.hot, { ...options, capacity: ctx.bufferPages }));
  }
  return curves;
}

/** Legend labels of the reference crawlers, apart from a policy run named `random`. */
export const BASELINE_LABELS = { random: 'random crawler', ideal: 'ideal crawler' } as const;

/** The random and ideal crawlers of each model. */
export function baselineCurves(ctx: EvalContext): Curve[] {
  const sample = { points: ctx.points };
  const curves: Curve[] = [];
  for (const kind of ['random', 'ideal'] as const) {
    const of = [
      pstBaseline(kind, ctx.hot, sample),
      pcsBaseline(kind, ctx.importance, sample),
      weightedCoverageBaseline(kind, ctx.weights, sample),
    ];
    if (ctx.bufferPages !== null) of.push(pbcBaseline(kind, ctx.hot, ctx.bufferPages, sample));
    curves.push(...of.map((c) => ({ ...c, spec: { ...c.spec, label: BASELINE_LABELS[kind] } })));
  }
  return curves;
}
