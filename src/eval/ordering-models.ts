/**
 * The evaluation models of URL ordering (SPEC §3; seed 004, Cho, Garcia-Molina & Page, §3), computed
 * after the fact from a crawl's visit order and the true importance of every page:
 *
 *     Crawl & Stop                PCS(K) = 100 · M / K,   M = |{ P among the first K visits : I(P) ≥ I(R_K) }|
 *                                 R_K = the K-th most important page; random 100·K/T, ideal 100
 *     Crawl & Stop with Threshold PST(K) = 100 · |{ hot P among the first K visits }| / H,   hot ⇔ I(P) ≥ G
 *                                 random 100·K/T, ideal 100·min(K, H)/H
 *     Weighted coverage           WC(t)  = Σ w(P) over the pages crawled by t   (seed 001; e.g. w = PageRank)
 *
 * The Limited Buffer model (PBC) is in ./ordering-buffer.ts, the random and ideal crawlers in
 * ./ordering-baselines.ts, the curve type and its conventions in ./ordering-curve.ts; this file
 * re-exports them by name, so it is the one module to import.
 *
 * Ties in PCS: every page whose importance equals I(R_K) counts as hot, as the paper's "≥" says, so
 * the hot set may hold more than K pages; PCS still never exceeds 100 (M ≤ K). The random baseline
 * stays the paper's 100·K/T even then (the exact expectation would be 100·|hot|/T).
 *
 * Implementation, O(T log T) for a whole PCS curve rather than a sort per sample: with
 * r(P) = |{ Q : I(Q) > I(P) }| (the rank of P, ties sharing the best one), I(P) ≥ I(R_K) ⇔ r(P) < K.
 * The visit at position i (0-based) of a page of rank r therefore counts in M(K) exactly for
 * K > max(i, r): one histogram over max(i, r) + 1 and a running sum give M(K) for every K.
 */
import {
  checkValues,
  checkVisitOrder,
  crawlerOf,
  fractions,
  importanceOf,
  resolveHot,
  sampleCounts,
  upperBound,
  type CrawlCurveOptions,
  type Curve,
  type HotPages,
  type ImportanceInput,
  type ResolvedHotPages,
  type SampleOptions,
} from './ordering-curve.js';

export {
  CurveModel,
  DEFAULT_POINTS,
  checkVisitOrder,
  firstVisits,
  resolveHot,
  sampleCounts,
  summarizeCurve,
  type CrawlCurveOptions,
  type CrawlerSpec,
  type Curve,
  type CurveSpec,
  type HotPages,
  type ImportanceInput,
  type ResolvedHotPages,
  type SampleOptions,
} from './ordering-curve.js';
export { pcsBaseline, pstBaseline, pbcBaseline, weightedCoverageBaseline, type Baseline } from './ordering-baselines.js';
export {
  BufferEventKind,
  BufferLogRecorder,
  LimitedBuffer,
  bufferLogFromVisits,
  pbcCurve,
  type BufferLog,
  type PbcOptions,
} from './ordering-buffer.js';

/**
 * PCS(K) of a crawl at each sample point (Crawl & Stop). NaN at K = 0.
 *
 * @param importance I(P) for each of the T pages.
 * @throws RangeError on a bad visit order (see ./ordering-curve.ts) or a NaN importance.
 */
export function pcsCurve(visitOrder: Uint32Array, importance: ImportanceInput, options: CrawlCurveOptions = {}): Curve {
  checkVisitOrder(visitOrder, importanceOf(importance).values.length);
  return pcsOfChecked(visitOrder, importance, options);
}

/** {@link pcsCurve} of a visit order already checked against T. */
function pcsOfChecked(visitOrder: Uint32Array, importance: ImportanceInput, options: CrawlCurveOptions): Curve {
  const { spec: importanceSpec, values } = importanceOf(importance);
  const pages = values.length;
  checkValues('pcsCurve', values);
  const visited = visitOrder.length;
  const ascending = Float64Array.from(values).sort();
  // counted[k] = visits that start counting in M at K = k.
  const counted = new Uint32Array(pages + 1);
  for (let i = 0; i < visited; i++) {
    const rank = pages - upperBound(ascending, values[visitOrder[i] as number] as number);
    const from = Math.max(i, rank) + 1;
    counted[from] = (counted[from] as number) + 1;
  }
  const ks = sampleCounts(pages, visited, options);
  const y = new Float64Array(ks.length);
  let m = 0;
  let k = 0;
  for (let s = 0; s < ks.length; s++) {
    const target = ks[s] as number;
    while (k < target) m += counted[++k] as number;
    y[s] = target === 0 ? NaN : (100 * m) / target;
  }
  const { crawler, label } = crawlerOf(options);
  return {
    spec: {
      id: 'pcs',
      params: { pages, visited, ties: 'equal-counts-as-hot' },
      crawler,
      importance: importanceSpec,
      label,
      xUnit: 'fraction',
      yUnit: 'percent',
    },
    x: fractions(ks, pages),
    y,
  };
}

/**
 * PST(K) of a crawl at each sample point (Crawl & Stop with Threshold): the percentage of the H hot
 * pages among the first K visits. NaN everywhere when H = 0.
 *
 * @throws RangeError on a bad visit order or a NaN importance.
 */
export function pstCurve(visitOrder: Uint32Array, hot: HotPages, options: CrawlCurveOptions = {}): Curve {
  const resolved = resolveHot(hot);
  checkVisitOrder(visitOrder, resolved.mask.length);
  return pstOfChecked(visitOrder, resolved, options);
}

/** {@link pstCurve} of a visit order already checked against T. */
function pstOfChecked(visitOrder: Uint32Array, resolved: ResolvedHotPages, options: CrawlCurveOptions): Curve {
  const { mask, hotPages } = resolved;
  const pages = mask.length;
  const ks = sampleCounts(pages, visitOrder.length, options);
  const y = new Float64Array(ks.length);
  let found = 0;
  let k = 0;
  for (let s = 0; s < ks.length; s++) {
    const target = ks[s] as number;
    for (; k < target; k++) found += mask[visitOrder[k] as number] as number;
    y[s] = hotPages === 0 ? NaN : (100 * found) / hotPages;
  }
  const { crawler, label } = crawlerOf(options);
  return {
    spec: {
      id: 'pst',
      params: { pages, visited: visitOrder.length, hotPages, ...resolved.params },
      crawler,
      importance: resolved.importance,
      label,
      xUnit: 'fraction',
      yUnit: 'percent',
    },
    x: fractions(ks, pages),
    y,
  };
}

/** Options of the weighted-coverage curves. */
export interface WeightedCoverageOptions extends CrawlCurveOptions {
  /** y as a percentage of the total weight Σ w over all T pages (true), or the raw sum (false). Default true. */
  readonly normalized?: boolean;
}

/**
 * WC after K visits at each sample point, against x = K / T. Normalized (the default), y is
 * 100·WC / Σ w, NaN when every weight is 0.
 *
 * @param weights w(P) ≥ 0 for each of the T pages, e.g. a PageRank importance.
 * @throws RangeError on a bad visit order or a negative, NaN or infinite weight.
 */
export function weightedCoverageCurve(visitOrder: Uint32Array, weights: ImportanceInput, options: WeightedCoverageOptions = {}): Curve {
  checkVisitOrder(visitOrder, importanceOf(weights).values.length);
  return weightedCoverageOfChecked(visitOrder, weights, options);
}

/** {@link weightedCoverageCurve} of a visit order already checked against T. */
function weightedCoverageOfChecked(visitOrder: Uint32Array, weights: ImportanceInput, options: WeightedCoverageOptions): Curve {
  const { spec: importanceSpec, values } = importanceOf(weights);
  const pages = values.length;
  checkValues('weightedCoverageCurve', values, true);
  const isNormalized = options.normalized ?? true;
  const scale = isNormalized ? percentScale(values) : 1;
  const ks = sampleCounts(pages, visitOrder.length, options);
  const y = new Float64Array(ks.length);
  let sum = 0;
  let k = 0;
  for (let s = 0; s < ks.length; s++) {
    const target = ks[s] as number;
    for (; k < target; k++) sum += values[visitOrder[k] as number] as number;
    y[s] = sum * scale;
  }
  const { crawler, label } = crawlerOf(options);
  return {
    spec: {
      id: 'wc',
      params: { pages, visited: visitOrder.length, normalized: isNormalized },
      crawler,
      importance: importanceSpec,
      label,
      xUnit: 'fraction',
      yUnit: isNormalized ? 'percent' : 'weight',
    },
    x: fractions(ks, pages),
    y,
  };
}

/** What {@link orderingCurves} measures a crawl against, each over the same T pages. */
export interface OrderingTargets {
  /** H for PST. */
  readonly hot: HotPages;
  /** I(P) for PCS. */
  readonly importance: ImportanceInput;
  /** w(P) for weighted coverage (normalized). */
  readonly weights: ImportanceInput;
}

/**
 * PST, PCS and weighted coverage of one crawl, in that order, its visit order checked once.
 * @throws RangeError when the three targets do not have the same T, on a bad visit order, or on a
 *   bad value (as each curve).
 */
export function orderingCurves(visitOrder: Uint32Array, targets: OrderingTargets, options: CrawlCurveOptions = {}): Curve[] {
  const hot = resolveHot(targets.hot);
  const pages = hot.mask.length;
  const sizes = [importanceOf(targets.importance).values.length, importanceOf(targets.weights).values.length];
  if (sizes.some((t) => t !== pages))
    throw new RangeError(`orderingCurves: hot pages, importance and weights cover ${[pages, ...sizes].join(', ')} pages`);
  checkVisitOrder(visitOrder, pages);
  return [
    pstOfChecked(visitOrder, hot, options),
    pcsOfChecked(visitOrder, targets.importance, options),
    weightedCoverageOfChecked(visitOrder, targets.weights, options),
  ];
}

/** Options of {@link weightedCoverageOverTime}. */
export interface WeightedCoverageTimeOptions extends Omit<WeightedCoverageOptions, keyof SampleOptions> {
  /** Number of equal time steps from the start to the last fetch. Default 100. */
  readonly points?: number;
  /** Explicit elapsed times to sample at (ascending, ms since `startMs`); overrides `points`. */
  readonly atMs?: ArrayLike<number>;
  /** The crawl's start on the same clock as the fetch times. Default the first fetch time. */
  readonly startMs?: number;
}

/**
 * WC(t) against elapsed time: x = t in ms since the start, y = Σ w over the pages whose fetch time
 * is ≤ start + t (normalized to the total weight by default).
 *
 * @param fetchTimesMs fetch time of each visit, parallel to `visitOrder`, non-decreasing.
 * @throws RangeError on a bad visit order, mismatched or decreasing times, or a bad weight.
 */
export function weightedCoverageOverTime(
  visitOrder: Uint32Array,
  fetchTimesMs: Float64Array,
  weights: ImportanceInput,
  options: WeightedCoverageTimeOptions = {},
): Curve {
  const { spec: importanceSpec, values } = importanceOf(weights);
  const pages = values.length;
  checkVisitOrder(visitOrder, pages);
  checkValues('weightedCoverageOverTime', values, true);
  if (fetchTimesMs.length !== visitOrder.length) {
    throw new RangeError(`weightedCoverageOverTime: ${visitOrder.length} visits but ${fetchTimesMs.length} fetch times`);
  }
  for (let i = 0; i < fetchTimesMs.length; i++) {
    const t = fetchTimesMs[i] as number;
    if (!Number.isFinite(t) || (i > 0 && t < (fetchTimesMs[i - 1] as number))) {
      throw new RangeError(`weightedCoverageOverTime: fetch times must be finite and non-decreasing (${t} at ${i})`);
    }
  }
  const startMs = options.startMs ?? fetchTimesMs[0] ?? 0;
  const endMs = fetchTimesMs.length === 0 ? startMs : (fetchTimesMs[fetchTimesMs.length - 1] as number);
  const points = options.points ?? 100;
  if (!Number.isInteger(points) || points < 1) throw new RangeError(`points must be an integer >= 1, got ${points}`);
  const x =
    options.atMs !== undefined
      ? Float64Array.from(options.atMs)
      : endMs > startMs
        ? Float64Array.from({ length: points + 1 }, (_, i) => ((endMs - startMs) * i) / points)
        : Float64Array.of(0);
  const isNormalized = options.normalized ?? true;
  const scale = isNormalized ? percentScale(values) : 1;
  const y = new Float64Array(x.length);
  let sum = 0;
  let k = 0;
  for (let s = 0; s < x.length; s++) {
    const until = startMs + (x[s] as number);
    if (s > 0 && (x[s] as number) < (x[s - 1] as number))
      throw new RangeError(`weightedCoverageOverTime: atMs must ascend (${x[s]} at ${s})`);
    for (; k < visitOrder.length && (fetchTimesMs[k] as number) <= until; k++) sum += values[visitOrder[k] as number] as number;
    y[s] = sum * scale;
  }
  const { crawler, label } = crawlerOf(options);
  return {
    spec: {
      id: 'wc',
      params: { pages, visited: visitOrder.length, normalized: isNormalized, startMs },
      crawler,
      importance: importanceSpec,
      label,
      xUnit: 'ms',
      yUnit: isNormalized ? 'percent' : 'weight',
    },
    x,
    y,
  };
}

/** 100 / Σ w, NaN when the total is 0 (a share of nothing is undefined). */
function percentScale(values: Float64Array): number {
  let total = 0;
  for (let p = 0; p < values.length; p++) total += values[p] as number;
  return total === 0 ? NaN : 100 / total;
}
