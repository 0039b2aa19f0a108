/**
 * The curve type of the URL-ordering evaluation (SPEC §3; seed 004, Cho, Garcia-Molina & Page, §3 and
 * §6–7): a y value (PCS, PST, PBC in percent, or weighted coverage) at sample points of the crawl,
 * x = K / T = the fraction of the T pages crawled after K visits (or elapsed time, for weighted
 * coverage over time). Also the pieces every model shares: checking a visit order, choosing the
 * sample points, and reading a curve back at given x for tables.
 *
 * Conventions of every curve in `eval/ordering-*.ts`:
 * - T is the length of the importance (or weight, or hot-mask) array: every page of the graph. To
 *   leave out pages no crawl can reach (the paper did), evaluate on the reachable subgraph.
 * - A visit order names each page at most once; a repeated or out-of-range id is an error
 *   (RangeError). {@link firstVisits} keeps the first visit of each page, for crawls that overlap.
 * - A visit order may be shorter than T (the crawl stopped or could not reach every page): the curve
 *   then ends at x = L / T.
 * - A value that is undefined (PCS at K = 0, PST with no hot page) is NaN; the report writers leave
 *   it out (empty CSV cell, JSON null, a gap in the chart line).
 */
import type { SpecValue, StrategySpec } from '../core/strings.js';
import { hotMask, type Importance, type ImportanceSpec } from './importance.js';

/** The evaluation models, as `as const` ids. */
export const CurveModel = {
  /** Crawl & Stop: PCS(K) = 100·M/K. */
  pcs: 'pcs',
  /** Crawl & Stop with Threshold: PST(K) = 100·(hot visited)/H. */
  pst: 'pst',
  /** Weighted coverage WC(t) = Σ w(p) over pages crawled by t. */
  wc: 'wc',
  /** Limited Buffer: PBC = 100·(hot pages kept)/B. */
  pbc: 'pbc',
} as const;
/** One of {@link CurveModel}. */
export type CurveModel = (typeof CurveModel)[keyof typeof CurveModel];

/** Who produced a curve: a crawl with its ordering policy, or one of the two reference crawlers. */
export type CrawlerSpec =
  { readonly kind: 'crawl'; readonly policy: StrategySpec } | { readonly kind: 'random' } | { readonly kind: 'ideal' };

/** Everything that produced a curve (CONVENTIONS §3: each result says exactly what produced it). */
export interface CurveSpec {
  /** The evaluation model. */
  readonly id: CurveModel;
  /** Model parameters with their effective values: `pages` (T), `threshold` (G), `hotPages` (H), `capacity` (B), ... */
  readonly params: Readonly<Record<string, SpecValue>>;
  /** The crawler whose visits the curve measures. */
  readonly crawler: CrawlerSpec;
  /** What I(P) (or w(p)) was. */
  readonly importance: ImportanceSpec;
  /** Name of the curve in legends and CSV headers. */
  readonly label: string;
  /** What x is: `fraction` of the T pages crawled (0..1), or `ms` elapsed since the crawl started. */
  readonly xUnit: 'fraction' | 'ms';
  /** What y is: `percent`, or `weight` (a raw weighted coverage). */
  readonly yUnit: 'percent' | 'weight';
}

/** A curve: y[i] at x[i], x strictly ascending. NaN in y = undefined at that point. */
export interface Curve {
  readonly spec: CurveSpec;
  readonly x: Float64Array;
  readonly y: Float64Array;
}

/** Where to sample a curve. */
export interface SampleOptions {
  /**
   * Number of equal steps from x = 0 to x = 1: K = round(i·T / points), i = 0..points, K ≤ L; when the
   * visit order is shorter than T a last point at K = L is added. Repeated K are sampled once.
   * Default 100.
   */
  readonly points?: number;
  /** Explicit fractions of T to sample at (ascending, in [0, 1]); overrides `points`, nothing added. */
  readonly at?: ArrayLike<number>;
}

/** Options shared by the curves of one crawl. */
export interface CrawlCurveOptions extends SampleOptions {
  /** The ordering policy that produced the visit order. Default `{ id: 'unspecified', params: {} }`. */
  readonly policy?: StrategySpec;
  /** Legend label. Default the policy formatted as `id` (its parameters stay in the spec). */
  readonly label?: string;
}

/** An importance given with its spec, or as a bare array (its spec is then `unspecified`). */
export type ImportanceInput = Importance | Float64Array;

const UNSPECIFIED: StrategySpec = Object.freeze({ id: 'unspecified', params: Object.freeze({}) });

/**
 * Which pages are hot: those with I(P) ≥ G (`threshold`), a mask computed elsewhere (`mask`,
 * nonzero = hot), e.g. topic ∧ backlinks, or either already resolved by {@link resolveHot} (so
 * that the curves of many runs share one mask and one count).
 */
export type HotPages =
  | { readonly kind: 'threshold'; readonly importance: ImportanceInput; readonly threshold: number }
  | { readonly kind: 'mask'; readonly mask: Uint8Array; readonly importance?: ImportanceSpec }
  | ResolvedHotPages;

/** A {@link HotPages} made concrete: the mask, H, and what to record in the curve's spec. Immutable. */
export interface ResolvedHotPages {
  readonly kind: 'resolved';
  /** 1 = hot, one entry per page (length T). */
  readonly mask: Uint8Array;
  /** H: number of hot pages. */
  readonly hotPages: number;
  readonly importance: ImportanceSpec;
  /** `{ threshold: G }` for a threshold, `{}` for a mask. */
  readonly params: Readonly<Record<string, SpecValue>>;
}

/** Resolves a {@link HotPages} (one already resolved is returned as it is). @throws RangeError on a NaN importance or threshold. */
export function resolveHot(hot: HotPages): ResolvedHotPages {
  if (hot.kind === 'resolved') return hot;
  if (hot.kind === 'mask') {
    let hotPages = 0;
    for (let p = 0; p < hot.mask.length; p++) if (hot.mask[p] !== 0) hotPages++;
    const mask = hot.mask.map((v) => (v !== 0 ? 1 : 0));
    return { kind: 'resolved', mask, hotPages, importance: hot.importance ?? UNSPECIFIED, params: {} };
  }
  if (Number.isNaN(hot.threshold)) throw new RangeError('hot pages: threshold G is NaN');
  const { spec, values } = importanceOf(hot.importance);
  const mask = hotMask(values, hot.threshold);
  let hotPages = 0;
  for (let p = 0; p < mask.length; p++) hotPages += mask[p] as number;
  return { kind: 'resolved', mask, hotPages, importance: spec, params: { threshold: hot.threshold } };
}

/** Default number of sampling steps. */
export const DEFAULT_POINTS = 100;

/** The spec and values of an {@link ImportanceInput}. */
export function importanceOf(input: ImportanceInput): Importance {
  return input instanceof Float64Array ? { spec: UNSPECIFIED, values: input } : input;
}

/** The crawler spec and label of a crawl curve from its options. */
export function crawlerOf(options: CrawlCurveOptions): { readonly crawler: CrawlerSpec; readonly label: string } {
  const policy = options.policy ?? UNSPECIFIED;
  return { crawler: { kind: 'crawl', policy }, label: options.label ?? policy.id };
}

/**
 * Checks that `visitOrder` names pages < n, each at most once.
 *
 * @throws RangeError naming the first bad position.
 */
export function checkVisitOrder(visitOrder: Uint32Array, n: number): void {
  if (visitOrder.length > n) throw new RangeError(`visit order has ${visitOrder.length} visits but the graph only ${n} pages`);
  const position = new Int32Array(n).fill(-1);
  for (let i = 0; i < visitOrder.length; i++) {
    const p = visitOrder[i] as number;
    if (p >= n) throw new RangeError(`visit order names page ${p} at position ${i}, but the graph has ${n} pages`);
    const first = position[p] as number;
    if (first >= 0) {
      throw new RangeError(
        `visit order repeats page ${p} at position ${i} (first visited at ${first}); use firstVisits() to keep first visits`,
      );
    }
    position[p] = i;
  }
}

/**
 * The first visit of each page, in order: later visits of a page (overlapping nodes, re-fetches) are
 * dropped, with their fetch times if given. Ids ≥ n throw RangeError.
 */
export function firstVisits(
  visitOrder: Uint32Array,
  n: number,
  fetchTimesMs?: Float64Array,
): { visitOrder: Uint32Array; fetchTimesMs?: Float64Array } {
  if (fetchTimesMs !== undefined && fetchTimesMs.length !== visitOrder.length) {
    throw new RangeError(`firstVisits: ${visitOrder.length} visits but ${fetchTimesMs.length} fetch times`);
  }
  const seen = new Uint8Array(n);
  const keep: number[] = [];
  for (let i = 0; i < visitOrder.length; i++) {
    const p = visitOrder[i] as number;
    if (p >= n) throw new RangeError(`firstVisits: page ${p} at position ${i} is not < ${n}`);
    if (seen[p] === 1) continue;
    seen[p] = 1;
    keep.push(i);
  }
  const order = Uint32Array.from(keep, (i) => visitOrder[i] as number);
  return fetchTimesMs === undefined
    ? { visitOrder: order }
    : { visitOrder: order, fetchTimesMs: Float64Array.from(keep, (i) => fetchTimesMs[i] as number) };
}

/**
 * The visit counts K to sample, strictly ascending, for T pages of which `visited` were crawled.
 *
 * @throws RangeError on points < 1 or fractions outside [0, 1] or not ascending.
 */
export function sampleCounts(pages: number, visited: number, options: SampleOptions = {}): Uint32Array {
  if (pages === 0) return new Uint32Array(0);
  const counts: number[] = [];
  const push = (k: number): void => {
    if (k <= visited && (counts.length === 0 || k > (counts[counts.length - 1] as number))) counts.push(k);
  };
  if (options.at !== undefined) {
    let previous = -Infinity;
    for (let i = 0; i < options.at.length; i++) {
      const f = options.at[i] as number;
      if (!(f >= 0 && f <= 1) || f < previous) throw new RangeError(`sample fractions must ascend within [0, 1], got ${f} at ${i}`);
      previous = f;
      push(Math.round(f * pages));
    }
    return Uint32Array.from(counts);
  }
  const points = options.points ?? DEFAULT_POINTS;
  if (!Number.isInteger(points) || points < 1) throw new RangeError(`points must be an integer >= 1, got ${points}`);
  for (let i = 0; i <= points; i++) push(Math.round((i * pages) / points));
  if (visited < pages) push(visited);
  return Uint32Array.from(counts);
}

/** x = K / T for each sampled K. */
export function fractions(counts: Uint32Array, pages: number): Float64Array {
  return Float64Array.from(counts, (k) => k / pages);
}

/**
 * y of `curve` at each x in `at` (default 0.1, 0.2, 0.4), by linear interpolation between the two
 * samples around x; NaN outside the curve's x range or next to an undefined sample. For the tables
 * of reports ("PST after 40% of the crawl").
 */
export function summarizeCurve(curve: Pick<Curve, 'x' | 'y'>, at: ArrayLike<number> = [0.1, 0.2, 0.4]): Float64Array {
  const { x, y } = curve;
  return Float64Array.from({ length: at.length }, (_, i) => {
    const t = at[i] as number;
    let hi = 0;
    while (hi < x.length && (x[hi] as number) < t) hi++;
    if (hi === x.length) return NaN;
    if ((x[hi] as number) === t) return y[hi] as number;
    if (hi === 0) return NaN;
    const x0 = x[hi - 1] as number;
    const x1 = x[hi] as number;
    const y0 = y[hi - 1] as number;
    const y1 = y[hi] as number;
    return y0 + ((y1 - y0) * (t - x0)) / (x1 - x0);
  });
}

/** The index of the first value > v in an ascending array (its length if none). */
export function upperBound(ascending: Float64Array, v: number): number {
  let lo = 0;
  let hi = ascending.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ascending[mid] as number) > v) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Throws RangeError if a value is NaN (or, with `isWeight`, negative or infinite). */
export function checkValues(what: string, values: Float64Array, isWeight = false): void {
  for (let p = 0; p < values.length; p++) {
    const v = values[p] as number;
    if (Number.isNaN(v) || (isWeight && !(v >= 0 && v < Infinity))) {
      throw new RangeError(`${what}: value of page ${p} is ${v}${isWeight ? ' (weights must be finite and >= 0)' : ''}`);
    }
  }
}
